package pricing

import (
	"unsafe"

	"github.com/tokenfare/tokenfare/ledger"
)

// Grouped by key and day, or the like, an engine holds tens of thousands
// of buckets, and a call's bucket is mostly in no cache of the core: its
// place in the index and the bucket are each a read from memory, one
// waiting on the other, and AddPriced, a call at a time, waits on each in
// turn (and on the model's caches of recent buckets, which few calls
// find theirs in then; a call looked ahead skips them, place). AddBatch
// prices a window of calls first, then reads their buckets' index slots
// in one pass and their buckets in the next: reads that wait on nothing
// in the pass, so that memory answers them together. Then it adds the
// calls to their buckets, each as AddPriced does, now from the cache and
// with the key the look-ahead made (lookAhead.keyOf).
// The look-ahead only reads: it numbers no text and notes nothing
// (keyOf), and a call whose key it cannot make (a text not yet numbered:
// the bucket is new) is looked for as AddPriced would. docs/scale.md,
// "Looking ahead in a batch", has its measures.

// aheadWindow is how many calls AddBatch prices before it places them:
// their index slots and buckets (a few cache lines each) stay in the
// core's cache from the pass that reads them to the call's turn.
const aheadWindow = 64

// aheadFrom is how many buckets an engine holds before AddBatch looks
// ahead: about 1.6 MiB of buckets, most of a core's cache. Below, the
// look-ahead reads what is in the cache anyway, and makes each key twice.
const aheadFrom = 8192

// aheadProbe is how many slots of a key's probe the look-ahead reads: a
// cache line's.
const aheadProbe = 8

// lookAhead is AddBatch's memory for one window of calls.
type lookAhead struct {
	from   int   // buckets held before it looks ahead: aheadFrom (tests set less)
	found  int64 // calls whose bucket a look-ahead read
	pcs    [aheadWindow]PricedCall
	keys   [aheadWindow]bucketKey // the calls' bucket keys, where hashes is not 0
	values *texts                 // the engine's values the keys were made with
	seed   uint64                 // the seed of the engine's table the keys were hashed with
	hashes [aheadWindow]uint64    // of the call's bucket key; 0 when it has none to look for
	sink   uint64                 // what the passes read, so that no read is dropped
}

// AddBatch prices calls and adds each to its bucket, in order, with the
// same results as AddPriced of each; after each call is added, it calls
// each with the call and its priced call (valid until each returns), and
// stops at the first error each returns. Every call of a window is
// classified before the first of them is added: each must not depend on
// what classify notes of the calls after its own.
func (e *Engine) AddBatch(calls []ledger.Call, each func(*ledger.Call, *PricedCall) error) error {
	if e.ahead == nil {
		e.ahead = &lookAhead{from: aheadFrom}
	}
	a := e.ahead
	grouped := e.dims&^(1<<DimModel) != 0
	for len(calls) > 0 {
		w := calls[:min(len(calls), aheadWindow)]
		calls = calls[len(w):]
		if !grouped || e.table.buckets.len() < a.from {
			// Buckets a core's cache holds: nothing to look ahead for.
			// The priced call is the window's, not one allocated per call.
			for i := range w {
				a.pcs[0] = e.AddPriced(&w[i])
				if err := each(&w[i], &a.pcs[0]); err != nil {
					return err
				}
			}
			continue
		}
		for i := range w {
			a.pcs[i] = e.classify(&w[i])
		}
		e.readAhead(w, a)
		for i := range w {
			pc := &a.pcs[i]
			k, h := a.keyOf(i, e.table.values, e.table.buckets.seed)
			e.addClassified(pc, &w[i], k, h)
			if err := each(&w[i], pc); err != nil {
				return err
			}
		}
	}
	return nil
}

// keyOf returns the bucket key the look-ahead made for call i of the
// window, nil when it made none or the engine's values are no longer
// those it numbered the key's texts with (a spill between made them
// anew). Every text of the key was numbered then and stays so: the key is
// the one place would make. It returns the key's hash too, 0 when the
// engine's table is no longer of the seed it was hashed with (seed: a
// spill between made the table anew).
func (a *lookAhead) keyOf(i int, values *texts, seed uint64) (*bucketKey, uint64) {
	if a.hashes[i] == 0 || values != a.values {
		return nil, 0
	}
	if seed != a.seed {
		return &a.keys[i], 0
	}
	return &a.keys[i], a.hashes[i]
}

// lines reads a word of each cache line b spans, and returns their sum
// for a sink: reading ahead (AddBatch, groupCursor.readAhead), as a call
// or a group's sum reads every line of its bucket (its key, compared,
// its alias, and the counts and sums added to). A bucket of 208 bytes in
// a slab starts at any multiple of 16 bytes past a line's start, and
// spans four or five lines: words 64 bytes apart from its first, and its
// last, are one in each. Until 2026-12-07 it read four fields, which
// left a line unread at three of the four starts.
func (b *bucket) lines() uint64 {
	p := unsafe.Pointer(b)
	var sum uint64
	for off := uintptr(0); off < bucketSize; off += 64 {
		sum += *(*uint64)(unsafe.Add(p, off))
	}
	return sum + *(*uint64)(unsafe.Add(p, bucketSize-8))
}

// bucketSize is the size of a bucket.
const bucketSize = unsafe.Sizeof(bucket{})

// readAhead reads, a pass each, the window's calls' places in the index
// of texts, their index slots, and their buckets, changing nothing.
func (e *Engine) readAhead(w []ledger.Call, a *lookAhead) {
	t := &e.table.buckets
	if len(t.slots) == 0 {
		return
	}
	var sink uint64
	// The keys' places in the index of texts by address (texts.at), read
	// before the keys are made from them.
	if values := e.table.values; e.dims.has(DimKey) {
		for i := range w {
			sink += values.touch(w[i].Key)
		}
	}
	a.values, a.seed = e.table.values, t.seed
	for i := range w {
		a.hashes[i] = 0
		pc := &a.pcs[i]
		switch pc.Outcome {
		case Outside, Overlap, Duplicate:
			continue
		}
		if k := &a.keys[i]; e.keyOf(k, pc, &w[i], w[i].Recorded.IsZero(), true) {
			a.hashes[i] = t.hash(k)
		}
	}
	mask := uint64(len(t.slots) - 1)
	for i := range w {
		if h := a.hashes[i]; h != 0 {
			sink += uint64(t.slots[h&mask])
		}
	}
	found := 0
	for i := range w {
		h := a.hashes[i]
		if h == 0 {
			continue
		}
		// The slot of the call's bucket is the first of its probe, or
		// one of the next few, mostly in the same cache line.
		for j, n := h&mask, 0; n < aheadProbe; j, n = (j+1)&mask, n+1 {
			s := t.slots[j]
			if s == 0 {
				break
			}
			if uint64(s)>>32 == h>>32 {
				sink += t.at(uint32(s) - 1).lines()
				found++
				break
			}
		}
	}
	a.sink += sink
	a.found += int64(found)
}
