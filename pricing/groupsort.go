package pricing

import (
	"cmp"
	"math/bits"
	"slices"
	"strings"
)

// sortedGroups returns the engine's groups sorted by their values
// (GroupKey.Value), compared dimension by dimension in the order of the
// dimensions' names. When of is not nil (its length the number of
// buckets), of[i] is set to the group of the engine's i-th bucket
// (bucketTable.all).
//
// No map of groups is made and no group is moved: each dimension's
// distinct values are sorted once and numbered in that order (a few
// thousand keys, a month of days), each bucket gets the numbers of its
// values, packed into one word where they fit, and the buckets are sorted
// by them. The buckets of a group are then next to each other, and the
// groups are made one after the other, in order.
func (e *Engine) sortedGroups(of []int32) []Group {
	bs := e.buckets.all()
	if len(bs) == 0 {
		return []Group{}
	}
	dims := slices.Clone(e.opts.Dims)
	slices.SortFunc(dims, func(a, b Dim) int { return strings.Compare(a.String(), b.String()) })
	if len(dims) == 0 {
		var s groupSum
		for _, b := range bs {
			s.add(b)
		}
		clear(of)
		return []Group{s.done()}
	}
	ranks, width := e.valueRanks(dims)
	order := sortByRanks(ranks, width, len(dims))
	n := 1
	for i := 1; i < len(order); i++ {
		if !sameRanks(ranks, len(dims), order[i-1].at, order[i].at) {
			n++
		}
	}
	groups := make([]Group, 0, n)
	var s groupSum
	for i, o := range order {
		b := bs[o.at]
		if i == 0 || !sameRanks(ranks, len(dims), order[i-1].at, o.at) {
			if i > 0 {
				groups = append(groups, s.done())
			}
			s = groupSum{g: Group{Key: e.groupKeyOf(b)}}
		}
		if of != nil {
			of[o.at] = int32(len(groups))
		}
		s.add(b)
	}
	return append(groups, s.done())
}

// dimValue is a bucket's value in one dimension, before it is text.
type dimValue struct {
	s string
	n int64
}

// valueOf returns bucket b's value in dimension d.
func valueOf(b *bucket, d Dim) dimValue {
	switch d {
	case DimModel:
		return dimValue{s: b.k.name()}
	case DimGroup:
		return dimValue{s: b.k.group}
	case DimKey:
		return dimValue{s: b.k.key}
	case DimTeam:
		return dimValue{s: b.k.team}
	case DimUser:
		return dimValue{s: b.k.user}
	case DimDay, DimHour:
		return dimValue{n: b.k.slot}
	case DimPeriod:
		return dimValue{s: b.periodName(), n: int64(b.k.outcome)}
	case DimVersion:
		if b.k.version != nil {
			return dimValue{s: b.k.version.Name}
		}
	case DimHost:
		return dimValue{s: b.k.served}
	case DimTag:
		return dimValue{s: b.k.tag}
	case DimMeta:
		return dimValue{s: b.k.meta}
	}
	return dimValue{}
}

// valueRanks numbers, for each of dims, the distinct values of the
// buckets in the order of their texts, and returns each bucket's numbers
// (bucket i's in ranks[i*len(dims):]) and, when they fit, the bits of
// each dimension's numbers in a packed word (nil when they do not).
func (e *Engine) valueRanks(dims []Dim) (ranks []uint32, width []uint8) {
	bs := e.buckets.all()
	ranks = make([]uint32, len(bs)*len(dims))
	width = make([]uint8, len(dims))
	total := 0
	for j, d := range dims {
		number := map[dimValue]uint32{}
		var firsts []*bucket // a bucket of each value, by number
		for i, b := range bs {
			v := valueOf(b, d)
			r, ok := number[v]
			if !ok {
				r = uint32(len(firsts))
				number[v] = r
				firsts = append(firsts, b)
			}
			ranks[i*len(dims)+j] = r
		}
		// Number the values in the order of their texts.
		keys := make([]GroupKey, len(firsts))
		for i, b := range firsts {
			keys[i] = e.groupKeyBy(b, []Dim{d})
		}
		perm := make([]uint32, len(firsts))
		for i := range perm {
			perm[i] = uint32(i)
		}
		slices.SortFunc(perm, func(a, b uint32) int { return compareValue(&keys[a], &keys[b], d) })
		final := make([]uint32, len(firsts))
		for pos, i := range perm {
			final[i] = uint32(pos)
		}
		for i := range bs {
			ranks[i*len(dims)+j] = final[ranks[i*len(dims)+j]]
		}
		width[j] = uint8(bits.Len32(uint32(len(firsts))))
		total += int(width[j])
	}
	if total > 64 {
		width = nil
	}
	return ranks, width
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
		slices.SortFunc(out, func(a, b rankedBucket) int { return cmp.Compare(a.packed, b.packed) })
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
