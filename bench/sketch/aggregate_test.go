// Package sketch measures shapes of aggregation the engine does not use
// (yet), on the scale of bench/groups.sh's 1M case: 4M calls of 8,000 keys
// over 31 days, about 1.4M buckets by model, key, day and period. It
// answers one question: what placing a call in its bucket costs, a call at
// a time into a hash table (the engine's shape, pricing/buckets.go, here
// without its caches of recent buckets), of the month's buckets or of a
// day's, against sorting the calls and summing neighbours. docs/scale.md
// ("Placing a call: a table or a sort") has the figures and what they
// mean for the engine.
//
//	go test -run '^$' -bench . -count 5 ./bench/sketch
//
// Each benchmark reports ns/call and the buckets it made;
// TestShapesAgree holds the four to the same buckets and sums.
package sketch

import (
	"math/rand/v2"
	"testing"
)

const (
	calls = 4_000_000
	keys  = 8_000
	days  = 31
)

// call is what placing a call reads: its grouping values and its sums.
type call struct {
	key    uint32
	day    uint16
	model  uint8
	period uint8
	qty    [6]int64
	spend  int64
}

// makeCalls returns n calls in time order, as a month's log comes.
func makeCalls(n int) []call {
	r := rand.New(rand.NewPCG(1, 2))
	cs := make([]call, n)
	for i := range cs {
		c := &cs[i]
		*c = call{key: uint32(r.IntN(keys)), day: uint16(i * days / n), model: uint8(r.IntN(3)), period: uint8(r.IntN(2))}
		for j := range c.qty {
			c.qty[j] = int64(r.IntN(1000))
		}
		c.spend = int64(r.IntN(100_000))
	}
	return cs
}

// key is a bucket key of the engine's size (pricing.bucketKey: pointers,
// a start and numbers of texts).
type key struct {
	model, version uintptr
	start          int64
	texts          [4]uint64
	key            uint32
	flags          uint64
}

// bucket is of the engine's size, about 200 bytes.
type bucket struct {
	k     key
	calls int64
	qty   [14]int64
	spend int64
}

func (b *bucket) add(c *call) {
	b.calls++
	for j, q := range c.qty {
		b.qty[j] += q
	}
	b.spend += c.spend
}

func hashOf(k *key) uint64 {
	h := uint64(0x243F6A8885A308D3)
	for _, w := range [...]uint64{uint64(k.model), uint64(k.version), uint64(k.start), k.texts[0], uint64(k.key), k.flags} {
		h = (h ^ w) * 0x9E3779B97F4A7C15
		h ^= h >> 32
	}
	return h
}

type slot struct {
	h uint64
	b *bucket
}

// sums is what a shape made: its buckets and a digest of their sums
// that another grouping of the same calls would not give (each bucket's
// calls times its spend, added).
type sums struct{ buckets, digest int64 }

func (t *sums) note(b *bucket) {
	t.buckets++
	t.digest += b.calls * b.spend
}

// keyOf returns the bucket key of a call.
func keyOf(c *call) key {
	return key{model: uintptr(c.model), start: int64(c.day) * 86400, key: c.key, flags: uint64(c.period)}
}

// probe returns the slot of slots (a power of two long) of key k: its
// bucket's, or the free slot where it goes, its hash set.
func probe(slots []slot, k *key) *slot {
	h := hashOf(k)
	mask := uint64(len(slots) - 1)
	j := h & mask
	for slots[j].b != nil && (slots[j].h != h || slots[j].b.k != *k) {
		j = (j + 1) & mask
	}
	slots[j].h = h
	return &slots[j]
}

// byTable places each call in a table of buckets: hash, probe, compare
// keys, add.
func byTable(cs []call) sums {
	slots := make([]slot, 1<<22)
	var slab []bucket
	var made []*bucket
	for i := range cs {
		c := &cs[i]
		k := keyOf(c)
		s := probe(slots, &k)
		if s.b == nil {
			if len(slab) == 0 {
				slab = make([]bucket, 512)
			}
			s.b = &slab[0]
			slab[0].k, slab = k, slab[1:]
			made = append(made, s.b)
		}
		s.b.add(c)
	}
	var t sums
	for _, b := range made {
		t.note(b)
	}
	return t
}

// byTableByDay places each call in a table of the day's buckets, emptied
// as the day ends (the log is in time order): the engine's shape with a
// budget of a day's buckets, spilled at each day's end.
func byTableByDay(cs []call) sums {
	slots := make([]slot, 1<<17) // a day's ~45,000 buckets at most a third full
	slab := make([]bucket, 0, 1<<16)
	var t sums
	flush := func() {
		for i := range slab {
			t.note(&slab[i])
		}
		slab = slab[:0]
		clear(slots)
	}
	for i := range cs {
		c := &cs[i]
		if i > 0 && c.day != cs[i-1].day {
			flush()
		}
		k := keyOf(c)
		s := probe(slots, &k)
		if s.b == nil {
			slab = append(slab, bucket{k: k})
			s.b = &slab[len(slab)-1]
		}
		s.b.add(c)
	}
	flush()
	return t
}

// record is a call as sorted: its grouping values packed in one word.
type record struct {
	k     uint64
	qty   [6]int64
	spend int64
}

// radixSort sorts rs by the low bits of their words, eight at a time,
// stably, through tmp (as long); it returns the sorted slice.
func radixSort(rs, tmp []record, bits uint) []record {
	for shift := uint(0); shift < bits; shift += 8 {
		var at [257]int
		for i := range rs {
			at[(rs[i].k>>shift)&0xff+1]++
		}
		for i := 1; i < len(at); i++ {
			at[i] += at[i-1]
		}
		for i := range rs {
			d := (rs[i].k >> shift) & 0xff
			tmp[at[d]] = rs[i]
			at[d]++
		}
		rs, tmp = tmp, rs
	}
	return rs
}

// sumRuns sums the runs of equal words of sorted rs into buckets, noted
// in t.
func sumRuns(rs []record, t *sums) {
	var cur bucket
	for i := range rs {
		r := &rs[i]
		if i > 0 && r.k != rs[i-1].k {
			t.note(&cur)
			cur = bucket{}
		}
		cur.add(&call{qty: r.qty, spend: r.spend})
	}
	if len(rs) > 0 {
		t.note(&cur)
	}
}

// bySortAll sorts the month's calls by their packed values at once.
func bySortAll(cs []call) sums {
	rs, tmp := make([]record, len(cs)), make([]record, len(cs))
	for i := range cs {
		c := &cs[i]
		rs[i] = record{k: uint64(c.day)<<16 | uint64(c.key)<<3 | uint64(c.model)<<1 | uint64(c.period), qty: c.qty, spend: c.spend}
	}
	var t sums
	sumRuns(radixSort(rs, tmp, 24), &t)
	return t
}

// bySortByDay sorts each day's calls apart as the day ends (the log is in
// time order): a day of the 4M calls is about 130,000 calls, 8 MB of
// records, sorted on its 16 bits of key, model and period in two passes.
func bySortByDay(cs []call) sums {
	var t sums
	rs, tmp := make([]record, 0, 2*len(cs)/days+1), make([]record, 2*len(cs)/days+1)
	for i := range cs {
		c := &cs[i]
		if i > 0 && c.day != cs[i-1].day {
			sumRuns(radixSort(rs, tmp[:len(rs)], 16), &t)
			rs = rs[:0]
		}
		rs = append(rs, record{k: uint64(c.key)<<3 | uint64(c.model)<<1 | uint64(c.period), qty: c.qty, spend: c.spend})
	}
	sumRuns(radixSort(rs, tmp[:len(rs)], 16), &t)
	return t
}

// TestShapesAgree holds the sorts to the table: the same buckets, the
// same sums, on 200,000 calls.
func TestShapesAgree(t *testing.T) {
	cs := makeCalls(200_000)
	want := byTable(cs)
	if want.buckets < 100_000 {
		t.Fatalf("the table made %d buckets of 200,000 calls: the case has too few to compare", want.buckets)
	}
	for name, shape := range map[string]func([]call) sums{"sort all": bySortAll, "sort by day": bySortByDay, "table by day": byTableByDay} {
		if got := shape(cs); got != want {
			t.Errorf("%s: %+v, the table %+v", name, got, want)
		}
	}
}

func benchmark(b *testing.B, shape func([]call) sums) {
	cs := makeCalls(calls)
	b.ResetTimer()
	for range b.N {
		b.ReportMetric(float64(shape(cs).buckets), "buckets")
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/calls, "ns/call")
}

// BenchmarkHashTable: byTable on the 4M calls.
func BenchmarkHashTable(b *testing.B) { benchmark(b, byTable) }

// BenchmarkTableByDay: byTableByDay on the 4M calls.
func BenchmarkTableByDay(b *testing.B) { benchmark(b, byTableByDay) }

// BenchmarkSortAll: bySortAll on the 4M calls.
func BenchmarkSortAll(b *testing.B) { benchmark(b, bySortAll) }

// BenchmarkSortByDay: bySortByDay on the 4M calls.
func BenchmarkSortByDay(b *testing.B) { benchmark(b, bySortByDay) }
