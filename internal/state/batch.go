package state

import (
	"bytes"
	"encoding/binary"
	"maps"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
)

// Batch is one refresh of one source: a pricing.Observer that gathers the
// calls of a run in memory, then Commit adds them to the store in one
// transaction with the source's new watermark.
type Batch struct {
	store   *Store
	source  Source
	since   time.Time // calls billed before it were counted by an earlier refresh
	sums    map[Key]*Sums
	seen    map[string]int64 // identities of this batch → billing instant (Unix ns)
	occ     map[string]int64 // identities of this batch → copies read
	newest  int64            // the newest billing instant of the batch (Unix ns)
	pruneAt int              // size of seen at which remember drops old identities
	rows    pricing.Rows
	tx      *bolt.Tx // read-only, for the identities already stored
	// fresh: the calls observed now were never read before (the bytes
	// past a file's mark), so a copy of a stored call is a duplicate, not
	// a row read again.
	fresh bool
	files *filePlan // the marks of the feed's files, stored with the batch
}

// Begin starts a refresh of the named source. Since returns the instant
// the refresh must read from: Overlap before the watermark (zero on the
// first refresh: everything).
func (s *Store) Begin(name string) (*Batch, error) {
	src, err := s.Source(name)
	if err != nil {
		return nil, err
	}
	tx, err := s.db.Begin(false)
	if err != nil {
		return nil, err
	}
	b := &Batch{store: s, source: src, sums: map[Key]*Sums{}, seen: map[string]int64{}, occ: map[string]int64{}, tx: tx}
	if !src.Watermark.IsZero() {
		b.since = src.Watermark.Add(-Overlap)
	}
	return b, nil
}

// Since is the instant the refresh reads from (zero: everything).
func (b *Batch) Since() time.Time { return b.since }

// Observe counts one call of the run. Calls are told apart by identity
// (gateway, request id, start), and the state keeps, per identity, how
// many copies of it its source gave so far: a copy within that count is a
// row read again (outside: counted before), one past it a duplicate. A
// call billed before Since is outside too; the engine tells the
// duplicates within the run.
func (b *Batch) Observe(c *ledger.Call, pc *pricing.PricedCall) error {
	o := pc.Outcome
	if c.Identity != "" {
		id := string(seenKey(c))
		stored := b.stored(id)
		if o == pricing.Outside && stored == 0 {
			b.rows.Count(o)
			return nil
		}
		if stored == 0 && b.other(id) {
			b.rows.Count(pricing.Overlap)
			return nil
		}
		n, again := b.occ[id]
		if !again && b.fresh {
			n = stored // none of the stored copies is read again
		}
		n++
		b.occ[id] = n
		b.remember(id, pc.At.UnixNano())
		switch {
		case n <= stored || o == pricing.Outside:
			b.rows.Count(pricing.Outside)
			return nil
		case n > 1:
			o = pricing.Duplicate
		}
	}
	b.rows.Count(o)
	if o == pricing.Outside || o == pricing.Overlap {
		// Outside: counted before. Overlap: a call another source gave
		// too (overlapping exports), counted there; as in the engine, it
		// adds nothing, not even its recorded spend.
		return nil
	}
	k := Key{Model: pc.ModelName(), Host: pc.Host(), Slot: pc.At.UTC().Truncate(Grain), KeyAlias: c.KeyAlias, Team: c.Team,
		Outcome: o, ServiceTier: c.ServiceTier, Region: c.Region}
	if o == pricing.Priced && pc.Tier > 0 {
		k.Above = pc.Quote.Prices.Tiers[pc.Tier-1].Above
	}
	s := b.sums[k]
	if s == nil {
		s = &Sums{}
		b.sums[k] = s
	}
	s.Calls++
	// A duplicate (the gateway logged the call twice) adds only the spend
	// it recorded again, as in the engine: that spend is part of the gap.
	s.Recorded = s.Recorded.Add(c.Recorded.Decimal())
	if o != pricing.Duplicate {
		q := pricing.QuantitiesOf(c.Tokens, c.Tools)
		s.Qty.Add(&q)
	}
	if pc.At.After(s.Newest) {
		s.Newest = pc.At.UTC()
	}
	return nil
}

// other reports whether another source gave identity id in an earlier
// refresh.
func (b *Batch) other(id string) bool {
	v := b.tx.Bucket(bucketSeen).Get([]byte(id))
	return len(v) >= 8 && string(v[8:]) != b.source.Name
}

// stored returns how many copies of identity id this source gave in
// earlier refreshes (0 when none, or another source's).
func (b *Batch) stored(id string) int64 {
	v := b.tx.Bucket(bucketSeen).Get([]byte(id))
	if len(v) < 8 || string(v[8:]) != b.source.Name {
		return 0
	}
	return int64(binary.BigEndian.Uint64(v))
}

// keepSeen is how many identities a batch holds before it drops those no
// later refresh reads again.
const keepSeen = 1 << 16

// remember keeps the identity of a call billed at ns, for the next
// refreshes; only those within Overlap of the newest call (and a day for
// a call's length) are kept, so that a first sync of millions of rows
// holds a few hours' identities.
func (b *Batch) remember(id string, ns int64) {
	b.newest = max(b.newest, ns)
	b.seen[id] = ns
	if len(b.seen) < max(keepSeen, b.pruneAt) {
		return
	}
	limit := b.newest - int64(Overlap+24*time.Hour)
	for k, at := range b.seen {
		if at < limit {
			delete(b.seen, k)
			delete(b.occ, k)
		}
	}
	// When the overlap holds more identities than keepSeen, the next
	// pass waits for as many again: passes stay linear in the calls.
	b.pruneAt = 2 * len(b.seen)
}

// Abort ends the batch without storing anything.
func (b *Batch) Abort() { b.tx.Rollback() }

// Commit stores the batch: its sums added to the stored ones, its
// identities, the rows it counted (rejected: the rows the run rejected)
// and the source's watermark, the newest billing instant read; and drops
// the identities of calls billed before every source's overlap.
func (b *Batch) Commit(rejected int64) (Source, error) {
	// The copies of each identity kept, read before the view ends.
	limit := b.newest - int64(Overlap+24*time.Hour)
	ids := map[string][]byte{}
	for id, at := range b.seen {
		if at >= limit {
			n := max(b.occ[id], b.stored(id))
			ids[id] = append(binary.BigEndian.AppendUint64(nil, uint64(n)), b.source.Name...)
		}
	}
	b.tx.Rollback()
	b.rows.Read += rejected
	b.rows.Rejected += rejected
	src := b.source
	src.Rows = src.Rows.Add(b.rows)
	src.Refreshes++
	err := b.store.db.Update(func(tx *bolt.Tx) error {
		// Keys are put in their order: bbolt splits a node only at the
		// commit, so puts in random order into a large batch move a
		// growing node's entries at each put (quadratic).
		sums := tx.Bucket(bucketSums)
		keys := make([][]byte, 0, len(b.sums))
		byKey := make(map[string]*Sums, len(b.sums))
		for k, s := range b.sums {
			key := encodeKey(&k)
			keys = append(keys, key)
			byKey[string(key)] = s
		}
		slices.SortFunc(keys, bytes.Compare)
		for _, key := range keys {
			s := byKey[string(key)]
			if v := sums.Get(key); v != nil {
				var old Sums
				if err := decodeSums(v, &old); err != nil {
					return err
				}
				old.add(s)
				s = &old
			}
			if err := sums.Put(key, encodeSums(s)); err != nil {
				return err
			}
			if s.Newest.After(src.Watermark) {
				src.Watermark = s.Newest
			}
		}
		seen := tx.Bucket(bucketSeen)
		for _, id := range slices.Sorted(maps.Keys(ids)) {
			if err := seen.Put([]byte(id), ids[id]); err != nil {
				return err
			}
		}
		if err := tx.Bucket(bucketSources).Put([]byte(src.Name), encodeSource(&src)); err != nil {
			return err
		}
		if b.files != nil {
			if err := b.files.put(tx, src.Name); err != nil {
				return err
			}
		}
		return prune(tx)
	})
	return src, err
}

// prune drops the identities of calls started before the oldest source's
// watermark less Overlap and a day (a call's start precedes its billing
// instant, by no more than a day): no refresh reads them again.
func prune(tx *bolt.Tx) error {
	var oldest time.Time
	err := tx.Bucket(bucketSources).ForEach(func(k, v []byte) error {
		s := Source{Name: string(k)}
		if err := decodeSource(v, &s); err != nil {
			return err
		}
		if oldest.IsZero() || s.Watermark.Before(oldest) {
			oldest = s.Watermark
		}
		return nil
	})
	if err != nil || oldest.IsZero() {
		return err
	}
	limit := uint64(oldest.Add(-Overlap - 24*time.Hour).UnixNano())
	c := tx.Bucket(bucketSeen).Cursor()
	for k, _ := c.First(); k != nil && beUint64(k) < limit; k, _ = c.Next() {
		if err := c.Delete(); err != nil {
			return err
		}
	}
	return nil
}
