package pricing

import (
	"cmp"
	"slices"
	"strings"
	"unsafe"
)

// The texts of a run's records (a group's model, key, alias, team, user
// and the like) are numbers: each text is numbered once for every run of
// the engine (runTexts, which lasts across spills, where the engine's own
// values start again at a spill past keptValues), a record carries its
// texts' numbers, and a merge compares two numbers by the places of their
// texts in byte order, found by one sort of the texts before it reads the
// runs back (rank). A record read back makes no string: its texts are the
// numbered ones.
//
// The texts are bounded (maxRunTexts): past the bound, a text not
// numbered yet is written whole in the record, and compared as text.

// maxRunTexts is how many texts an engine's runs number at most: the
// keys and aliases of a gateway of 100,000 keys (a month of 90,000 keys
// by model, key and day numbers about 180,000: docs/scale.md, "Ten
// million groups"). Their map, list, index of addresses and ranks take
// 15 MiB for 180,000 texts and 23 MiB at the bound, besides the texts'
// bytes, which they keep from one spill to the next (64 bytes a key).
const maxRunTexts = 1 << 18

// runTexts numbers the texts of an engine's runs. The zero value is
// ready to use.
type runTexts struct {
	t   texts
	max int // the bound of the texts; 0: maxRunTexts
	// ranks are the places of the texts numbered when they were last
	// ranked, by number, in byte order: a number past them is compared
	// as text.
	ranks []uint32
	// byValue and aliasOf are the numbers of the texts of an engine's
	// values, plus one, and of the alias of each key, by the value's
	// number among values (valueID, aliasID).
	values  *texts
	byValue []text
	aliasOf []runAlias
}

// valueID is id(s) for s, the engine's value n of values (a record's
// key, team, user and the like, made from buckets): found by n in a list
// after the first time, where id looks it up by the address of its bytes
// in an index of every text's (a megabyte for a month of 8,000 keys, past
// a core's cache at each key a spill's records turn to).
func (r *runTexts) valueID(values *texts, n text, s string) text {
	r.sameValues(values)
	if int(n) < len(r.byValue) {
		if id := r.byValue[n]; id != 0 {
			return id - 1
		}
	}
	id := r.id(s)
	if n != absentText && id != absentText {
		if had := len(r.byValue); int(n) >= had {
			r.byValue = slices.Grow(r.byValue, int(n)+1-had)[:n+1]
			clear(r.byValue[had:]) // of values before, when started again
		}
		r.byValue[n] = id + 1
	}
	return id
}

// aliasID is id(alias) for the alias of a record of key n among values,
// made from buckets: a key's alias is mostly the one it had before, and
// the same bytes (the engine keeps a key's alias as its first bucket had
// it), found by n and the address of its bytes.
func (r *runTexts) aliasID(values *texts, n text, alias string) text {
	r.sameValues(values)
	if int(n) < len(r.aliasOf) {
		if a := &r.aliasOf[n]; a.id != 0 && len(a.s) == len(alias) && unsafe.StringData(a.s) == unsafe.StringData(alias) {
			return a.id - 1
		}
	}
	id := r.id(alias)
	if n != absentText && id != absentText {
		if had := len(r.aliasOf); int(n) >= had {
			r.aliasOf = slices.Grow(r.aliasOf, int(n)+1-had)[:n+1]
			clear(r.aliasOf[had:])
		}
		r.aliasOf[n] = runAlias{alias, id + 1} // the string keeps its bytes from being reused
	}
	return id
}

// runAlias is the alias a key's records had last, and its number plus
// one.
type runAlias struct {
	s  string
	id text
}

// sameValues forgets what valueID and aliasID noted of values other than
// values: an engine starts its values again past keptValues.
func (r *runTexts) sameValues(values *texts) {
	if r.values != values {
		r.values, r.byValue, r.aliasOf = values, r.byValue[:0], r.aliasOf[:0]
	}
}

// id returns the number of s, numbering it when new, or absentText when
// it is new and the texts are at their bound.
func (r *runTexts) id(s string) text {
	if r.t.len() >= cmp.Or(r.max, maxRunTexts) {
		return r.t.lookup(s)
	}
	return r.t.id(s)
}

// of returns text n and true, or false when n is not numbered.
func (r *runTexts) of(n uint64) (string, bool) {
	if n == 0 {
		return "", true
	}
	if n >= uint64(len(r.t.list)) {
		return "", false
	}
	return r.t.list[n], true
}

// rank places the texts numbered in byte order, unless none was
// numbered since they were last: one sort of the distinct texts.
func (r *runTexts) rank() {
	list := r.t.list
	if len(list) == 0 {
		list = []string{""}
	}
	if len(r.ranks) == len(list) {
		return
	}
	order := make([]uint32, len(list))
	for i := range order {
		order[i] = uint32(i)
	}
	slices.SortFunc(order, func(a, b uint32) int { return strings.Compare(list[a], list[b]) })
	ranks := make([]uint32, len(list))
	for place, n := range order {
		ranks[n] = uint32(place)
	}
	r.ranks = ranks
}

// The slots of a record's texts: its key's texts, then its alias.
const (
	slotModel = iota
	slotGroup
	slotKey
	slotTeam
	slotUser
	slotPeriod
	slotVersion
	slotHost
	slotTag
	slotMeta
	slotAlias
	runStrings // how many texts a group has
)

// textOf returns the text of g in slot i.
func textOf(g *Group, i int) *string {
	k := &g.Key
	switch i {
	case slotModel:
		return &k.Model
	case slotGroup:
		return &k.Group
	case slotKey:
		return &k.Key
	case slotTeam:
		return &k.Team
	case slotUser:
		return &k.User
	case slotPeriod:
		return &k.Period
	case slotVersion:
		return &k.Version
	case slotHost:
		return &k.Host
	case slotTag:
		return &k.Tag
	case slotMeta:
		return &k.Meta
	}
	return &g.KeyAlias
}

// slotOf returns the slot of dimension d's text, -1 when its value is not
// a text of the key alone (a day, an hour, a period with its outcome).
func slotOf(d Dim) int {
	switch d {
	case DimModel:
		return slotModel
	case DimGroup:
		return slotGroup
	case DimKey:
		return slotKey
	case DimTeam:
		return slotTeam
	case DimUser:
		return slotUser
	case DimVersion:
		return slotVersion
	case DimHost:
		return slotHost
	case DimTag:
		return slotTag
	case DimMeta:
		return slotMeta
	}
	return -1
}

// textSlots returns the slots of the texts a group by dims can have, in
// order: its key's in those dimensions (the period's with DimPeriod), and
// its alias when grouped by key. The others are empty (groupKeyBy).
func textSlots(dims []Dim) []uint8 {
	var slots []uint8
	for _, d := range dims {
		switch i := slotOf(d); {
		case i >= 0:
			slots = append(slots, uint8(i))
		case d == DimPeriod:
			slots = append(slots, slotPeriod)
		}
		if d == DimKey {
			slots = append(slots, slotAlias)
		}
	}
	slices.Sort(slots)
	return slices.Compact(slots)
}

// keyOrder orders the sums of groups as compareKeys orders their keys: a
// text by its rank when both sums were read back from runs (numbered),
// by its bytes otherwise.
type keyOrder struct {
	dims  []Dim // sorted by name
	slots []int // the slot of each of dims, as slotOf
	keyed []int // the slots of the key's texts, for same
	texts *runTexts
}

// newKeyOrder returns the order of groups by dims, whose texts texts
// numbers.
func newKeyOrder(dims []Dim, texts *runTexts) *keyOrder {
	o := &keyOrder{dims: sortedDims(dims), texts: texts}
	for _, d := range o.dims {
		o.slots = append(o.slots, slotOf(d))
	}
	for _, i := range textSlots(dims) {
		if i != slotAlias {
			o.keyed = append(o.keyed, int(i))
		}
	}
	return o
}

// compare compares the keys of a and b.
func (o *keyOrder) compare(a, b *groupSum) int {
	if !a.numbered || !b.numbered {
		return compareKeys(&a.g.Key, &b.g.Key, o.dims)
	}
	ranks := o.texts.ranks
	for j, d := range o.dims {
		i := o.slots[j]
		if i < 0 {
			if c := compareValue(&a.g.Key, &b.g.Key, d); c != 0 {
				return c
			}
			continue
		}
		x, y := a.ids[i], b.ids[i]
		switch {
		case x == y && x != absentText:
		case uint(x) < uint(len(ranks)) && uint(y) < uint(len(ranks)):
			return cmp.Compare(ranks[x], ranks[y])
		default:
			if c := strings.Compare(*textOf(&a.g, i), *textOf(&b.g, i)); c != 0 {
				return c
			}
		}
	}
	return 0
}

// same reports whether a and b are parts of one group: their keys equal.
func (o *keyOrder) same(a, b *groupSum) bool {
	if !a.numbered || !b.numbered {
		return a.g.Key == b.g.Key
	}
	for _, i := range o.keyed {
		x := a.ids[i]
		if x != b.ids[i] || (x == absentText && *textOf(&a.g, i) != *textOf(&b.g, i)) {
			return false
		}
	}
	k, l := &a.g.Key, &b.g.Key
	return k.Start == l.Start && k.Outcome == l.Outcome && k.Provider == l.Provider
}
