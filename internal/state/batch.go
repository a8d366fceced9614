package state

import (
	"slices"
	"time"

	"github.com/tokenfare/tokenfare/failures"
	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

// Batch is one refresh of one source: a pricing.Observer that gathers the
// calls of a run in memory, then Commit adds them to the store in one
// transaction with the source's new watermark. A batch of more keys than
// a part holds them in the pending sums past it (see bucketPending).
type Batch struct {
	store   *Store
	source  Source
	since   time.Time // calls billed before it were counted by an earlier refresh
	sums    map[Key]*batchSums
	ids     idSet // identities of this batch
	newest  int64 // the newest billing instant of the batch (Unix ns)
	pruneAt int   // size of ids at which remember drops old identities
	rows    pricing.Rows
	tx      *txn // read-only, for the identities already stored
	// lastSeen is the latest start (Unix ns) an identity stored may have:
	// a call started after it was never stored.
	lastSeen uint64
	// hours are the identities stored, by the hour of their start, as
	// read from the chunks (heldHour).
	hours map[int64]map[string]held
	late  int64
	// overlaps are the identities of this batch another source gave
	// first, with their billing instants (Unix ns) and lengths.
	overlaps map[string]copies
	billing  *tariffs.BillingTime // the run's override of the billing instant
	bounds   []int64              // the catalog's prompt-size tier thresholds, ascending
	// fresh: the calls observed now were never read before (the bytes
	// past a file's mark), so a copy of a stored call is a duplicate, not
	// a row read again.
	fresh bool
	files *filePlan // the marks of the feed's files, stored with the batch
	// first and last are the span of the slots the batch flushed,
	// watermark the newest billing instant among them; flushed says it
	// did (the pending sums hold its keys).
	first, last, watermark time.Time
	flushed                bool
}

// Begin starts a refresh of the named source. Since returns the instant
// the refresh must read from: Overlap before the watermark (zero on the
// first refresh: everything).
func (s *Store) Begin(name string) (*Batch, error) {
	if err := s.settle(s.onCommit); err != nil {
		return nil, err
	}
	src, err := s.Source(name)
	if err != nil {
		return nil, err
	}
	tx, err := s.db.begin()
	if err != nil {
		return nil, err
	}
	b := &Batch{store: s, source: src, sums: map[Key]*batchSums{}, ids: idSet{at: map[string]int32{}}, tx: tx}
	defer func() {
		if r := recover(); r != nil { // a damaged page: see Store.Recover
			tx.Rollback()
			panic(r)
		}
	}()
	b.lastSeen = lastHeld(tx)
	if !src.Watermark.IsZero() {
		b.since = src.Watermark.Add(-Overlap)
	}
	return b, nil
}

// Since is the instant the refresh reads from (zero: everything).
func (b *Batch) Since() time.Time { return b.since }

// Floor is the oldest billing instant a call of the refresh may have and
// still be told apart from the calls counted before: the identities of
// the calls started in the day and Overlap before the watermark are kept
// (zero on the first refresh). A call read for the first time and billed
// between Floor and Since was logged late: it is counted in its own
// slot. One billed before Floor is counted as outside.
func (b *Batch) Floor() time.Time {
	if b.since.IsZero() {
		return b.since
	}
	return b.since.Add(-24 * time.Hour)
}

// Use tells the batch the catalog and billing override its run prices
// with, which the sums' Detail records.
func (b *Batch) Use(cat *tariffs.Catalog, billing *tariffs.BillingTime) {
	b.billing, b.bounds = billing, pricing.TierBounds(cat)
}

// Observe counts one call of the run. Calls are told apart by identity
// (gateway, request id, start), and the state keeps, per identity, how
// many copies of it its source gave so far: a copy within that count is a
// row read again (outside: counted before), one past it a duplicate. A
// call billed before Since is outside too; the engine tells the
// duplicates within the run.
func (b *Batch) Observe(c *ledger.Call, pc *pricing.PricedCall) error {
	o := pc.Outcome
	early := !b.since.IsZero() && pc.At.Before(b.since) // before the lookback
	switch {
	case c.Identity == "" && early && !b.fresh:
		o = pricing.Outside // cannot be told from a call counted before
	case c.Identity != "":
		id := seenKey(c)
		stored, other, err := b.lookup(id)
		if err != nil {
			return err
		}
		if o == pricing.Outside && stored == 0 {
			b.rows.Count(o)
			return nil
		}
		if other {
			if o, err = b.overlap(id, copies{n: 1, at: pc.At.UnixNano(), long: callLength(c)}); err != nil {
				return err
			}
			break
		}
		at, again := b.ids.at[id]
		var cp copies
		if again {
			cp = b.ids.list[at].copies
		}
		n := cp.n
		if !again && b.fresh {
			n = stored // none of the stored copies is read again
		}
		n++
		b.remember(id, at, again, copies{n: n, at: pc.At.UnixNano(), long: max(cp.long, callLength(c))})
		switch {
		case n <= stored || o == pricing.Outside:
			o = pricing.Outside
		case n > 1:
			o = pricing.Duplicate
		case early && o != pricing.Duplicate:
			b.late++
		}
	}
	b.rows.Count(o)
	if o == pricing.Outside {
		return nil // counted before
	}
	k := b.key(c, pc, o)
	s := b.sums[k]
	if s == nil {
		if len(b.sums) >= b.store.partKeys {
			if err := b.flush(); err != nil {
				return err
			}
		}
		s = &batchSums{}
		b.sums[k] = s
	}
	s.Calls++
	if s.Oldest.IsZero() || pc.At.Before(s.Oldest) {
		s.Oldest = pc.At.UTC()
	}
	if pc.At.After(s.Newest) {
		s.Newest = pc.At.UTC()
	}
	if o == pricing.Overlap || o == pricing.Duplicate {
		// A call read again, from another source (overlapping exports)
		// or from this one (a row exported twice), counted where it was
		// read first; as in the engine, it adds nothing, not even its
		// recorded spend: only its row is counted.
		return nil
	}
	s.recorded.Add(c.Recorded)
	q := pricing.QuantitiesOf(c.Tokens, c.Tools)
	s.Qty.Add(&q)
	return nil
}

// key returns the key a call of outcome o is summed under.
func (b *Batch) key(c *ledger.Call, pc *pricing.PricedCall, o pricing.Outcome) Key {
	k := Key{Model: pc.ModelName(), Host: pc.Host(), Slot: pc.At.UTC().Truncate(Grain), KeyAlias: c.KeyAlias, Team: c.Team,
		Outcome: o, ServiceTier: c.ServiceTier, Region: c.Region}
	if o == pricing.Priced && pc.Tier > 0 {
		k.Above = pc.Quote.Prices.Tiers[pc.Tier-1].Above
	}
	k.Detail = Detail{Kept: true, Gateway: c.Gateway, Logged: c.Model, Group: c.ModelGroup, PriceKey: c.PriceKey, HostLogged: c.Host,
		KeyHash: c.Key, User: c.User, Tags: c.Tags, Zero: c.Recorded.IsZero(), Billing: tariffs.BillEnd, Band: band(b.bounds, c.Tokens.Prompt())}
	switch {
	case b.billing != nil:
		k.Billing = *b.billing
	case pc.Quote.Model != nil:
		k.Billing = pc.Quote.Model.Provider.Billing
	}
	if o == pricing.Failed {
		class, _ := failures.Classify(c)
		k.Failure = uint8(class)
	}
	return k
}

// band returns the thresholds of bounds (ascending) that prompt lies above
// and at or below, 0 for none: every prompt of the band is in the same
// tier of every version whose thresholds are among bounds.
func band(bounds []int64, prompt int64) [2]int64 {
	i, _ := slices.BinarySearch(bounds, prompt) // bounds[i-1] < prompt <= bounds[i]
	var out [2]int64
	if i > 0 {
		out[0] = bounds[i-1]
	}
	if i < len(bounds) {
		out[1] = bounds[i]
	}
	return out
}

// overlap counts a call another source gave first (its copy c): an
// Overlap the first time this source gives it, Outside when read again.
func (b *Batch) overlap(id string, c copies) (pricing.Outcome, error) {
	if _, again := b.overlaps[id]; again {
		return pricing.Outside, nil
	}
	m, err := b.heldHour(hourOf(id))
	if err != nil {
		return 0, err
	}
	if m[id].overlap {
		return pricing.Outside, nil
	}
	if b.overlaps == nil {
		b.overlaps = map[string]copies{}
	}
	b.overlaps[id] = c
	return pricing.Overlap, nil
}

// lookup returns how many copies of identity id this source gave in
// earlier refreshes (0 when none), or other true when another source gave
// it. A call started after the last hour the chunks hold is not looked
// up; the chunks of a call's hour are read once a batch (heldHour).
func (b *Batch) lookup(id string) (stored int64, other bool, err error) {
	if beUint64([]byte(id[:min(8, len(id))])) > b.lastSeen { // 8 bytes: no copy of the identity
		return 0, false, nil
	}
	m, err := b.heldHour(hourOf(id))
	if err != nil {
		return 0, false, err
	}
	h := m[id]
	if h.n > 0 {
		return h.n, false, nil
	}
	return 0, h.other, nil
}

// keepSeen is how many identities a batch holds before it drops those no
// later refresh reads again.
const keepSeen = 1 << 16

// copies is what a batch knows of one identity: the copies of it read
// (with those the source gave in earlier refreshes, when read again),
// the billing instant of the last (Unix ns) and the longest copy's
// length (callLength).
type copies struct {
	n    int64
	at   int64
	long int64
}

// callLength is how long a call ran, from its start to its last instant
// logged (its end, or its first token when later), in ns; 0 when neither
// is known.
func callLength(c *ledger.Call) int64 {
	last := c.End
	if c.FirstToken.After(last) {
		last = c.FirstToken
	}
	if last.IsZero() {
		return 0
	}
	return max(0, int64(last.Sub(c.Start)))
}

// batchSums are a key's sums in a batch, the recorded spend summed in
// integers until the commit.
type batchSums struct {
	Sums
	recorded pricing.ExactSum
}

// remember keeps the copies of an identity (again: at its place at in
// the set), for the next refreshes; only those within Overlap of the
// newest call (and a day for a call's length) are kept, so that a first
// sync of millions of rows holds a few hours' identities.
func (b *Batch) remember(id string, at int32, again bool, c copies) {
	b.newest = max(b.newest, c.at)
	if again {
		b.ids.list[at].copies = c
		return
	}
	b.ids.add(id, c)
	if len(b.ids.list) < max(keepSeen, b.pruneAt) {
		return
	}
	b.ids.keep(b.newest - int64(Overlap+24*time.Hour))
	// When the overlap holds more identities than keepSeen, the next
	// pass waits for as many again: passes stay linear in the calls.
	b.pruneAt = 2 * len(b.ids.list)
}

// idSet is a batch's identities and their copies, in the order first
// read: a commit goes through a slice, not a map.
type idSet struct {
	at   map[string]int32 // an identity's place in list
	list []idCopies
}

type idCopies struct {
	id string
	copies
}

// add adds an identity the set does not hold.
func (s *idSet) add(id string, c copies) {
	s.at[id] = int32(len(s.list))
	s.list = append(s.list, idCopies{id, c})
}

// keep drops the identities whose last copy was billed before limit
// (Unix ns).
func (s *idSet) keep(limit int64) {
	kept := s.list[:0]
	for _, e := range s.list {
		if e.at < limit {
			delete(s.at, e.id)
			continue
		}
		s.at[e.id] = int32(len(kept))
		kept = append(kept, e)
	}
	clear(s.list[len(kept):])
	s.list = kept
}

// Abort ends the batch without storing anything: the pending sums it
// flushed are dropped (or, should that fail, by the next Begin or Open).
func (b *Batch) Abort() {
	b.tx.Rollback()
	if b.flushed {
		_ = b.store.db.update(dropPending) // else the next Begin or Open drops them
	}
}

// Commit stores the batch: its sums added to the stored ones, its
// identities, the rows it counted (rejected: the rows the run rejected)
// and the source's watermark, the newest billing instant read; and drops
// the identities of calls billed before every source's overlap.
func (b *Batch) Commit(rejected int64) (Source, error) {
	// The identities kept that are new or have more copies than stored,
	// read before the view ends.
	limit := b.newest - int64(Overlap+24*time.Hour)
	var ids []entry
	for _, e := range b.ids.list {
		id, c := e.id, e.copies
		if c.at < limit {
			continue
		}
		stored, _, err := b.lookup(id)
		if err != nil {
			b.tx.Rollback()
			return Source{}, err
		}
		if n := max(c.n, stored); n != stored {
			ids = append(ids, entry{id: id, n: n, rows: n - stored, long: c.long})
		}
	}
	for id, c := range b.overlaps {
		if c.at >= limit {
			ids = append(ids, entry{id: id, n: 1, overlap: true, rows: 1, long: c.long})
		}
	}
	b.tx.Rollback()
	b.rows.Read += rejected
	b.rows.Rejected += rejected
	src := b.source
	src.Rows = src.Rows.Add(b.rows)
	src.Refreshes++
	src.Late += b.late
	if b.files != nil {
		src.Unread = b.files.Unread
	}
	puts := b.sortedPuts()
	if b.watermark.After(src.Watermark) {
		src.Watermark = b.watermark
	}
	err := b.store.db.update(func(tx *txn) error {
		var err error
		if b.flushed {
			err = b.land(tx, puts)
		} else {
			err = b.put(tx, puts)
		}
		if err != nil {
			return err
		}
		if err := putChunks(tx, src.Name, src.Refreshes, ids, true); err != nil {
			return err
		}
		if err := tx.sources().Put(sourceKey(src.Name), encodeSource(&src)); err != nil {
			return err
		}
		if b.files != nil {
			if err := b.files.put(tx, src.Name); err != nil {
				return err
			}
		}
		return prune(tx)
	})
	if err == nil && b.flushed {
		return src, b.store.settle(b.store.onCommit)
	}
	if err == nil && b.store.onCommit != nil {
		for k, s := range b.sums {
			if err = b.store.onCommit(&k, &s.Sums); err != nil {
				break
			}
		}
	}
	return src, err
}

// put adds the batch's sums, sorted, to the stored ones.
func (b *Batch) put(tx *txn, puts []put) error {
	sums := tx.sums()
	sums.fill(sumsFill)
	// A key of a slot after the state's last one is new: only those of
	// the slots read again (the overlap) are looked up.
	_, stored, ok := storedSpan(tx)
	if !ok {
		stored = noSpan // no span kept: every key looked up
	}
	if err := putSpan(tx, b.first, b.last); err != nil {
		return err
	}
	for _, p := range puts {
		if err := addSums(sums, p.key, p.s, !slotOf(p.key).After(stored)); err != nil {
			return err
		}
	}
	return nil
}

// addSums adds s to the sums of key in bucket b: s itself when lookup is
// false (the key is known to be new) or the bucket holds none.
func addSums(b bucket, key []byte, s *Sums, lookup bool) error {
	var v []byte
	if lookup {
		v = b.Get(key)
	}
	if v != nil {
		var old Sums
		if err := decodeSums(v, &old); err != nil {
			return err
		}
		old.add(s)
		s = &old
	}
	return b.Put(key, encodeSums(s))
}

// sumsFill is how full a commit leaves the sums' pages it splits. Keys
// start with their slot, so a refresh's new keys are put after every key
// stored: filled to bbolt's default of half, every page of them would
// stay half empty, the file and a commit's pages in memory twice their
// size. The slots read again (the overlap) are the few pages a later put
// may split again.
const sumsFill = 0.9

// prune drops the identities of calls started before the oldest source's
// watermark less Overlap and a day (a call's start precedes its billing
// instant, by no more than a day): no refresh reads them again.
func prune(tx *txn) error {
	var oldest time.Time
	err := tx.sources().ForEach(func(k, v []byte) error {
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
	return pruneChunks(tx, oldest.Add(-Overlap-24*time.Hour).UnixNano())
}
