package pricing

import (
	"cmp"
	"math/bits"
	"slices"
	"strings"

	"github.com/tokenfare/tokenfare/tariffs"
)

// sortedGroups returns the engine's groups sorted by their values
// (GroupKey.Value), compared dimension by dimension in the order of the
// dimensions' names. When of is not nil (its length the number of
// buckets), of[i] is set to the group of the engine's i-th bucket
// (bucketTable.all).
func (e *Engine) sortedGroups(of []int32) []Group {
	c := e.groupCursor(e.table.buckets.all())
	groups := make([]Group, 0, c.groups)
	var s groupSum
	for c.next(&s, of, int32(len(groups))) {
		groups = append(groups, s.done())
	}
	return groups
}

// groupCursor goes over the groups of a list of buckets in order, one
// group at a time, so that no list of groups is made.
//
// No map of groups is made and no group is moved: each dimension's
// distinct values are sorted once and numbered in that order (a few
// thousand keys, a month of days), each bucket gets the numbers of its
// values, packed into one word where they fit, and the buckets are sorted
// by them. The buckets of a group are then next to each other, and the
// groups are made one after the other, in order.
type groupCursor struct {
	bs     []*bucket
	ranks  []uint32 // bucket i's numbers in ranks[i*nd:]
	nd     int      // the number of dimensions
	order  []rankedBucket
	packed bool // order's packed numbers are set: equal for the buckets of a group
	at     int  // the next bucket of order
	groups int  // how many groups there are
	e      *Engine
	blend  bool // sum the groups' blend parts too
	// read is how far in order the buckets were read ahead (readAhead);
	// sink takes what was read, so that no read is dropped.
	read int
	sink uint64
	// each, when not nil, is given every bucket as next sums it, or as
	// drain passes it.
	each func(*bucket)
}

// cursorAhead is how many buckets of its order a cursor reads at once,
// ahead of summing them: the sort puts a bucket next to those of its
// group, made at other times and far in memory, and read one at a time
// each bucket waited on memory in turn. Read together, their waits
// overlap (as AddBatch's look-ahead does, ahead.go).
const cursorAhead = 32

// readAhead reads the buckets of the next cursorAhead places of order
// that were not read yet: their keys and the counts a group sums.
func (c *groupCursor) readAhead() {
	end := min(c.at+cursorAhead, len(c.order))
	var sink uint64
	for _, r := range c.order[max(c.at, c.read):end] {
		sink += c.bs[r.at].lines()
	}
	c.read, c.sink = end, c.sink+sink
}

// groupCursor returns a cursor at the first group of the buckets bs.
func (e *Engine) groupCursor(bs []*bucket) *groupCursor {
	c := &groupCursor{bs: bs, e: e}
	if len(bs) == 0 {
		return c
	}
	dims := sortedDims(e.opts.Dims)
	c.nd = len(dims)
	if c.nd == 0 {
		c.order = make([]rankedBucket, len(bs))
		for i := range c.order {
			c.order[i].at = int32(i)
		}
		c.groups = 1
		return c
	}
	var width []uint8
	c.ranks, width, c.sink = e.valueRanks(bs, dims)
	c.order, c.packed = sortByRanks(c.ranks, width, c.nd), width != nil
	c.groups = 1
	for i := 1; i < len(c.order); i++ {
		if !c.same(c.order[i-1].at, c.order[i].at) {
			c.groups++
		}
	}
	return c
}

// sortedDims returns dims in the order of their names: the order groups
// compare in.
func sortedDims(dims []Dim) []Dim {
	dims = slices.Clone(dims)
	slices.SortFunc(dims, func(a, b Dim) int { return strings.Compare(a.String(), b.String()) })
	return dims
}

// same reports whether buckets a and b are of one group.
func (c *groupCursor) same(a, b int32) bool {
	return c.nd == 0 || sameRanks(c.ranks, c.nd, a, b)
}

// drain gives each the buckets next has not summed, and leaves the
// cursor past the last group.
func (c *groupCursor) drain() {
	for ; c.at < len(c.order); c.at++ {
		c.each(c.bs[c.order[c.at].at])
	}
}

// rewind moves the cursor back to the first group.
func (c *groupCursor) rewind() { c.at, c.read = 0, 0 }

// next sums the next group into s and reports whether there was one. When
// of is not nil, of[i] is set to n for each bucket i of the group.
func (c *groupCursor) next(s *groupSum, of []int32, n int32) bool {
	if c.at >= len(c.order) {
		return false
	}
	if c.at >= c.read-cursorAhead/2 {
		c.readAhead()
	}
	first, packed := c.order[c.at].at, c.order[c.at].packed
	*s = groupSum{from: c.bs[first]}
	c.e.keyInto(&s.g.Key, c.bs[first], c.e.opts.Dims)
	for ; c.at < len(c.order); c.at++ {
		i := c.order[c.at].at
		if c.packed && c.order[c.at].packed != packed || !c.packed && !c.same(first, i) {
			break
		}
		if of != nil {
			of[i] = n
		}
		s.add(c.bs[i])
		if c.each != nil {
			c.each(c.bs[i])
		}
		if c.blend {
			s.blend.add(c.bs[i])
		}
	}
	return true
}

// dimValue is a bucket's value in one dimension, before it is text.
type dimValue struct {
	s string
	n int64
}

// valueOf returns bucket b's value in dimension d: a text by its number
// (distinct numbers are distinct strings), a model by its name.
func (e *Engine) valueOf(b *bucket, d Dim) dimValue {
	switch d {
	case DimModel:
		return dimValue{s: e.nameOf(&b.k)}
	case DimDay, DimHour:
		return dimValue{n: b.k.slot}
	case DimPeriod:
		return dimValue{s: b.periodName(), n: int64(b.k.outcome)}
	case DimVersion:
		if b.k.version != nil {
			return dimValue{s: b.k.version.Name}
		}
		return dimValue{}
	}
	return dimValue{n: int64(textIn(b, d))}
}

// valueRanks numbers, for each of dims, the distinct values of the
// buckets bs in the order of their texts, and returns each bucket's numbers
// (bucket i's in ranks[i*len(dims):]) and, when they fit, the bits of
// each dimension's numbers in a packed word (nil when they do not).
//
// The buckets are read in one pass, every dimension's value of a bucket
// numbered while it is in the core's cache: a spill's buckets (a day of
// 31,500 of a month of 8,000 keys) are past it, and a pass for each
// dimension read each from memory again. The pass reads every line of
// each bucket (sink: what it read), in the order the buckets lie in
// memory, which the processor reads ahead of it: the cursor then sums
// them in the groups' order, from the cache, where it read each from
// memory (a day's input, more than the cache, has pushed them out since
// their calls). Cachegrind's simulated cache on the 1M-group case: 1.7
// misses a group fewer in the cursor's reads, 2.0 more in this pass's,
// in order (docs/scale.md, "A group's calls in memory").
func (e *Engine) valueRanks(bs []*bucket, dims []Dim) (ranks []uint32, width []uint8, sink uint64) {
	nd := len(dims)
	ranks = make([]uint32, len(bs)*nd)
	width = make([]uint8, nd)
	nums := make([]valueNumbers, nd)
	for j, d := range dims {
		nums[j] = e.newValueNumbers(d)
	}
	for i, b := range bs {
		for j := range nums {
			ranks[i*nd+j] = nums[j].of(e, b)
		}
		sink += b.lines()
	}
	total := 0
	for j := range dims {
		firsts := nums[j].firsts
		// Number the values in the order of their texts.
		perm := e.valueOrder(firsts, dims[j:j+1])
		final := make([]uint32, len(firsts))
		for pos, i := range perm {
			final[i] = uint32(pos)
		}
		for i := range bs {
			ranks[i*nd+j] = final[ranks[i*nd+j]]
		}
		width[j] = uint8(bits.Len32(uint32(len(firsts))))
		total += int(width[j])
	}
	if total > 64 {
		width = nil
	}
	return ranks, width, sink
}

// valueOrder returns the places in firsts of their buckets' values in
// dimension dim[0], in the order of the values' texts: a text compared
// as bytes where the dimension's values are texts alone (slotOf), else
// as compareValue compares keys.
func (e *Engine) valueOrder(firsts []*bucket, dim []Dim) []uint32 {
	d := dim[0]
	if textDim(d) {
		if perm, ok := e.textOrder(firsts, d); ok {
			return perm
		}
	}
	perm := make([]uint32, len(firsts))
	if i := slotOf(d); i >= 0 {
		type textAt struct {
			s  string
			at uint32
		}
		vals := make([]textAt, len(firsts))
		var g Group
		for n, b := range firsts {
			text := textOf(&g, i)
			*text = "" // keyInto sets no version of a bucket that has none
			e.keyInto(&g.Key, b, dim)
			vals[n] = textAt{*text, uint32(n)}
		}
		slices.SortFunc(vals, func(a, b textAt) int { return strings.Compare(a.s, b.s) })
		for pos, v := range vals {
			perm[pos] = v.at
		}
		return perm
	}
	keys := make([]GroupKey, len(firsts))
	for n, b := range firsts {
		e.keyInto(&keys[n], b, dim)
		perm[n] = uint32(n)
	}
	slices.SortFunc(perm, func(a, b uint32) int { return compareValue(&keys[a], &keys[b], d) })
	return perm
}

// textOrder is valueOrder for a dimension whose values are the engine's
// texts (textDim), by their places in byte order (textPlaces): numbers
// sorted, no text compared; false when a bucket's text is not numbered
// (absentText). Distinct numbers are distinct texts, so the order is the
// one their texts sort in.
func (e *Engine) textOrder(firsts []*bucket, d Dim) ([]uint32, bool) {
	place := e.places.of(e.table.values)
	keys := make([]uint64, len(firsts))
	for n, b := range firsts {
		x := textIn(b, d)
		if int(x) >= len(place) {
			return nil, false
		}
		keys[n] = uint64(place[x])<<32 | uint64(n)
	}
	slices.Sort(keys)
	perm := make([]uint32, len(keys))
	for pos, k := range keys {
		perm[pos] = uint32(k)
	}
	return perm, true
}

// textPlaces places the texts of an engine's values in byte order, and
// keeps their places from one spill to the next while the values are
// kept (groupTable.collapse): a spill of a day of a month of 8,000 keys
// sorted the keys' texts again, 31 times. Texts numbered since are
// sorted alone and merged in.
type textPlaces struct {
	values *texts   // the texts placed; others are placed anew
	order  []text   // their numbers, in the byte order of their texts
	place  []uint32 // by number, its place in order
}

// of returns the places of the texts of values, by number, 0 ("") among
// them.
func (p *textPlaces) of(values *texts) []uint32 {
	if p.values != values {
		*p = textPlaces{values: values}
	}
	list := values.list
	if len(list) == 0 {
		list = []string{""}
	}
	if len(p.place) == len(list) {
		return p.place
	}
	fresh := make([]text, 0, len(list)-len(p.place))
	for n := len(p.place); n < len(list); n++ {
		fresh = append(fresh, text(n))
	}
	byText := func(a, b text) int { return strings.Compare(list[a], list[b]) }
	slices.SortFunc(fresh, byText)
	order := make([]text, 0, len(list))
	old := p.order
	for len(old) > 0 && len(fresh) > 0 {
		if byText(old[0], fresh[0]) <= 0 {
			order, old = append(order, old[0]), old[1:]
		} else {
			order, fresh = append(order, fresh[0]), fresh[1:]
		}
	}
	order = append(append(order, old...), fresh...)
	place := slices.Grow(p.place, len(list)-len(p.place))[:len(list)]
	for at, n := range order {
		place[n] = uint32(at)
	}
	p.order, p.place = order, place
	return place
}

// valueNumbers numbers the distinct values of buckets in one dimension,
// from 0 in the order met (of), and keeps a bucket of each value, by
// number (firsts).
type valueNumbers struct {
	d      Dim
	firsts []*bucket
	// byText is, for a dimension whose values are the engine's texts
	// (textDim), each text's number plus one by the text's number (0: not
	// met), the texts being dense; a bucket whose text is past it
	// (absentText) is numbered by number, as another dimension's.
	byText []uint32
	number map[dimValue]uint32
	// last and lastR are the last value numbered by number and its
	// number (seen: there was one): buckets come mostly in time order, a
	// day's one after the other.
	last  dimValue
	lastR uint32
	seen  bool
	// A tariff model's number, by its address: found without hashing
	// its name, after the first of its buckets; the last one's without
	// a look-up.
	byModel   map[*tariffs.Model]uint32
	lastModel *tariffs.Model
}

// newValueNumbers returns the numbering of dimension d's values.
func (e *Engine) newValueNumbers(d Dim) valueNumbers {
	v := valueNumbers{d: d, number: map[dimValue]uint32{}}
	if textDim(d) {
		v.byText = make([]uint32, e.table.values.len()+1) // numbers from 1, 0 for none
	}
	if d == DimModel {
		v.byModel = map[*tariffs.Model]uint32{}
	}
	return v
}

// of returns the number of bucket b's value, numbering it when new.
func (v *valueNumbers) of(e *Engine, b *bucket) uint32 {
	if v.byText != nil {
		if n := textIn(b, v.d); int(n) < len(v.byText) {
			r := v.byText[n]
			if r == 0 {
				v.firsts = append(v.firsts, b)
				r = uint32(len(v.firsts))
				v.byText[n] = r
			}
			return r - 1
		}
	}
	if m := b.k.model; m != nil && v.byModel != nil {
		if m == v.lastModel {
			return v.lastR
		}
		if r, ok := v.byModel[m]; ok {
			v.lastModel, v.lastR, v.last, v.seen = m, r, dimValue{s: m.ID}, true
			return r
		}
	}
	val := e.valueOf(b, v.d)
	r, ok := v.lastR, v.seen && val == v.last
	if !ok {
		if r, ok = v.number[val]; !ok {
			r = uint32(len(v.firsts))
			v.number[val] = r
			v.firsts = append(v.firsts, b)
		}
	}
	v.last, v.lastR, v.lastModel, v.seen = val, r, nil, true
	if v.byModel != nil && b.k.model != nil {
		v.byModel[b.k.model], v.lastModel = r, b.k.model
	}
	return r
}

// textIn returns the number of bucket b's text in dimension d, one of
// textDim's.
func textIn(b *bucket, d Dim) text {
	switch d {
	case DimGroup:
		return b.k.group
	case DimKey:
		return b.k.holder.key
	case DimTeam:
		return b.k.holder.team
	case DimUser:
		return b.k.holder.user
	case DimHost:
		return b.k.served
	case DimTag:
		return b.k.holder.tag
	}
	return b.k.holder.meta
}

// textDim reports whether valueOf gives d's values as the numbers of the
// engine's values.
func textDim(d Dim) bool {
	switch d {
	case DimGroup, DimKey, DimTeam, DimUser, DimHost, DimTag, DimMeta:
		return true
	}
	return false
}

// rankedBucket is a bucket's place in the engine's list, with its
// dimensions' numbers packed into one word when they fit.
type rankedBucket struct {
	packed uint64
	at     int32
}

// sortByRanks returns the buckets' places sorted by their numbers,
// dimension by dimension.
func sortByRanks(ranks []uint32, width []uint8, nd int) []rankedBucket {
	n := len(ranks) / nd
	out := make([]rankedBucket, n)
	for i := range out {
		out[i].at = int32(i)
		if width != nil {
			var p uint64
			for j := range nd {
				p = p<<width[j] | uint64(ranks[i*nd+j])
			}
			out[i].packed = p
		}
	}
	if width != nil {
		if !sortPackedWords(out, width) {
			slices.SortFunc(out, func(a, b rankedBucket) int { return cmp.Compare(a.packed, b.packed) })
		}
		return out
	}
	slices.SortFunc(out, func(a, b rankedBucket) int {
		return slices.Compare(ranks[int(a.at)*nd:int(a.at+1)*nd], ranks[int(b.at)*nd:int(b.at+1)*nd])
	})
	return out
}

// sameRanks reports whether buckets a and b have the same numbers in
// every dimension: whether they are of one group.
func sameRanks(ranks []uint32, nd int, a, b int32) bool {
	return slices.Equal(ranks[int(a)*nd:int(a+1)*nd], ranks[int(b)*nd:int(b+1)*nd])
}

// sortPackedWords sorts buckets by their packed numbers as plain words,
// each its packed numbers above its place, by their digits (radixSort),
// where a sort by a function called it for every comparison (a spill of
// a million groups at the budget sorts 388,361 buckets); false, out as it was,
// when the numbers and the places do not fit one word. Buckets of the
// same numbers (one group) come in the order of their places.
func sortPackedWords(out []rankedBucket, width []uint8) bool {
	bitsOf := bits.Len(uint(len(out)))
	for _, w := range width {
		bitsOf += int(w)
	}
	if bitsOf > 64 {
		return false
	}
	placeBits := bits.Len(uint(len(out)))
	words := make([]uint64, len(out))
	for i, r := range out {
		words[i] = r.packed<<placeBits | uint64(r.at)
	}
	radixSort(words, placeBits, bitsOf) // out is in the order of its places
	for i, w := range words {
		out[i] = rankedBucket{packed: w >> placeBits, at: int32(w & (1<<placeBits - 1))}
	}
	return true
}

// radixDigit is the bits of a digit of radixSort: a table of 2,048
// counts, 16 KiB, in a core's first cache.
const radixDigit = 11

// radixSort sorts words whose bits above the lowest n are zero, and
// which are in the order of their bits below from, digit by digit from
// bit from (a sort of least significant digit first, each pass stable,
// so that the bits below from need no pass), passing over a digit every
// word has the same: two passes over a spill's buckets by model, key and
// day, their places below from, where a sort by comparisons made about
// eighteen, and a pass over every digit of the places four.
func radixSort(words []uint64, from, n int) {
	if len(words) < 1<<radixDigit {
		slices.Sort(words)
		return
	}
	src, dst := words, make([]uint64, len(words))
	var count [1 << radixDigit]int
	for shift := from; shift < n; shift += radixDigit {
		clear(count[:])
		for _, w := range src {
			count[w>>shift&(1<<radixDigit-1)]++
		}
		if count[src[0]>>shift&(1<<radixDigit-1)] == len(src) {
			continue // the same digit in every word
		}
		at := 0
		for d, c := range count {
			count[d] = at
			at += c
		}
		for _, w := range src {
			d := w >> shift & (1<<radixDigit - 1)
			dst[count[d]] = w
			count[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &words[0] {
		copy(words, src)
	}
}
