package state

import (
	"bytes"
	"encoding/binary"
	"maps"
	"slices"
	"time"

	"github.com/tokenfare/tokenfare/internal/extsort"
	"github.com/tokenfare/tokenfare/ledger"
)

// The identities of the calls read are kept in chunks (bucketIDs): one
// record per hour of their start, source and commit, holding the
// identities that commit added or whose copies it raised. A commit writes
// a few records however many calls it read, a lookup reads the chunks of
// one hour once, and a prune drops whole hours.
//
// A chunk's key is chunkKey (schema.go). Its value is a format byte; in
// chunkV2 then the rows of the hour the commit read for the first time
// (its new identities' copies, the raised ones' further copies, its
// overlaps) and the longest of their calls (ns, callLength), which the
// next refreshes weigh against the database (Batch.known); then, per
// identity, its seen key (seenKey) and its copies, doubled, plus one when
// it is an overlap (the source gave a call another source gave first), as
// the sums' records write a string and an integer. A chunkV1 has no rows
// nor longest call: those of the earlier format (bucketSeen) moved into
// chunks.

const hourNs = int64(time.Hour)

// hourOf returns the hour (Unix ns) an identity's start falls in.
func hourOf(id string) int64 {
	start := int64(beUint64([]byte(id[:min(8, len(id))])))
	return start - start%hourNs
}

// entry is one identity of a chunk: its copies, and, in a commit's, the
// rows of it the commit read for the first time and the longest of
// their calls.
type entry struct {
	id      string
	n       int64
	overlap bool
	rows    int64
	long    int64
}

// encodeChunk encodes es as a chunkV2, with the rows and the longest call
// they sum to, or, summed false (identities moved from the earlier
// format, whose lengths are unknown), as a chunkV1.
func encodeChunk(es []entry, summed bool) []byte {
	// About the size written: an identity's length and copies take a byte
	// or two each.
	size := 1 + 2*binary.MaxVarintLen64
	for _, e := range es {
		size += len(e.id) + 4
	}
	r := extsort.NewEncoder(make([]byte, 0, size))
	if !summed {
		r.Byte(chunkV1)
	} else {
		var rows, long int64
		for _, e := range es {
			rows, long = rows+e.rows, max(long, e.long)
		}
		r.Byte(chunkV2)
		r.Varint(rows)
		r.Varint(long)
	}
	for _, e := range es {
		r.String(e.id)
		v := e.n << 1
		if e.overlap {
			v |= 1
		}
		r.Varint(v)
	}
	return r.Bytes()
}

// chunkSum returns the rows and the longest call a chunkV2 holds; ok
// false for a chunkV1.
func chunkSum(v []byte) (rows, long int64, ok bool, err error) {
	if len(v) == 0 || (v[0] != chunkV1 && v[0] != chunkV2) {
		return 0, 0, false, errCorrupt
	}
	if v[0] == chunkV1 {
		return 0, 0, false, nil
	}
	f := extsort.NewDecoder(v[1:])
	rows, long = f.Varint(), f.Varint()
	if f.Err() != nil || rows < 0 || long < 0 {
		return 0, 0, false, errCorrupt
	}
	return rows, long, true, nil
}

// eachEntry calls fn with each identity of a chunk.
func eachEntry(v []byte, fn func(id string, n int64, overlap bool)) error {
	if len(v) == 0 || (v[0] != chunkV1 && v[0] != chunkV2) {
		return errCorrupt
	}
	f := extsort.NewDecoder(v[1:])
	if v[0] == chunkV2 {
		f.Varint()
		f.Varint()
	}
	for f.Left() > 0 {
		id, x := f.Text(), f.Varint()
		if f.Err() != nil || x < 0 {
			return errCorrupt
		}
		fn(id, x>>1, x&1 == 1)
	}
	return nil
}

// held is what the chunks say of one identity, seen from one source.
type held struct {
	n       int64 // the copies this source gave (0: none)
	overlap bool  // this source gave it after another source
	other   bool  // another source gave it first
}

// heldHour returns the identities stored with a start in hour, read from
// the chunks once per batch.
func (b *Batch) heldHour(hour int64) (map[string]held, error) {
	if m, ok := b.hours[hour]; ok {
		return m, nil
	}
	m := map[string]held{}
	prefix := binary.BigEndian.AppendUint64(nil, uint64(hour))
	c := b.tx.ids().Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		src, ok := chunkSource(k)
		if !ok {
			return nil, errCorrupt
		}
		own := string(src) == b.source.Name
		err := eachEntry(v, func(id string, n int64, overlap bool) {
			h := m[id]
			switch {
			case own && overlap:
				h.overlap = true
			case own:
				h.n = max(h.n, n)
			case !overlap:
				h.other = true
			}
			m[id] = h
		})
		if err != nil {
			return nil, err
		}
	}
	if b.hours == nil {
		b.hours = map[int64]map[string]held{}
	}
	b.hours[hour] = m
	return m, nil
}

// lastHeld returns the latest start an identity stored may have: the end
// of the last hour any chunk holds (0 when none).
func lastHeld(tx *txn) uint64 {
	k, _ := tx.ids().Cursor().Last()
	if k == nil {
		return 0
	}
	return chunkHour(k) + uint64(hourNs) - 1
}

// putChunks writes the batch's new and raised identities in one chunk per
// hour, for commit seq of source, summed (chunkV2) or not. A chunk's
// identities are in no order: a lookup reads them into a map.
func putChunks(tx *txn, source string, seq int64, es []entry, summed bool) error {
	// Each hour's entries in a slice of its size, counted first.
	counts := map[int64]int{}
	for _, e := range es {
		counts[hourOf(e.id)]++
	}
	byHour := make(map[int64][]entry, len(counts))
	for h, n := range counts {
		byHour[h] = make([]entry, 0, n)
	}
	for _, e := range es {
		h := hourOf(e.id)
		byHour[h] = append(byHour[h], e)
	}
	ids := tx.ids()
	for _, h := range slices.Sorted(maps.Keys(byHour)) {
		if err := ids.Put(chunkKey(h, source, seq), encodeChunk(byHour[h], summed)); err != nil {
			return err
		}
	}
	return nil
}

// pruneChunks drops the chunks of the hours that end at or before limit
// (Unix ns): every identity in them started before it.
func pruneChunks(tx *txn, limit int64) error {
	c := tx.ids().Cursor()
	for k, _ := c.First(); k != nil && int64(chunkHour(k))+hourNs <= limit; k, _ = c.Next() {
		if err := c.Delete(); err != nil {
			return err
		}
	}
	return nil
}

// migrateSeen moves the identities of the earlier format (bucketSeen)
// into chunks (commit number 0), an hour of starts a transaction, and
// removes its bucket: a stop midway leaves each hour in one format or the
// other, and the next open goes on; memory holds one hour's identities.
func migrateSeen(d *db) error {
	for {
		done, err := migrateSeenHour(d)
		if err != nil || done {
			return err
		}
	}
}

// migrateSeenHour moves the first hour of the earlier format's identities
// into chunks; done once none is left and the bucket is gone.
func migrateSeenHour(d *db) (done bool, err error) {
	err = d.update(func(tx *txn) error {
		old := tx.seen()
		if !old.exists() {
			done = true
			return nil
		}
		c := old.Cursor()
		k, v := c.First()
		if k == nil {
			done = true
			return tx.drop(bucketSeen)
		}
		if len(k) < 8 {
			return errCorrupt
		}
		hour := hourOf(string(k))
		bySource := map[string][]entry{}
		var moved [][]byte
		for ; len(k) >= 8 && hourOf(string(k)) == hour; k, v = c.Next() {
			src, e, err := decodeSeenV0(k, v)
			if err != nil {
				return err
			}
			bySource[src] = append(bySource[src], e)
			moved = append(moved, bytes.Clone(k))
		}
		if _, err := tx.ensure(bucketIDs); err != nil {
			return err
		}
		for src, es := range bySource {
			if err := putChunks(tx, src, 0, es, false); err != nil {
				return err
			}
		}
		for _, k := range moved {
			if err := old.Delete(k); err != nil {
				return err
			}
		}
		return nil
	})
	return done, err
}

// Known returns what the chunks hold of this source's calls started in
// [from, until): the rows its refreshes read, and the longest of their
// calls, or of the calls of the hours the span's ends cut into (never
// less than the span's own). ok is false when an hour of the span holds
// identities without rows (chunkV1, from the earlier format).
func (b *Batch) Known(from, until time.Time) (k ledger.Known, ok bool, err error) {
	lo, hi := from.UnixNano(), until.UnixNano()
	k = ledger.Known{From: from, Until: until}
	bucket := b.tx.ids()
	for h := lo - lo%hourNs; h < hi; h += hourNs {
		whole := h >= lo && h+hourNs <= hi
		prefix := binary.BigEndian.AppendUint64(nil, uint64(h))
		c := bucket.Cursor()
		for key, v := c.Seek(prefix); key != nil && bytes.HasPrefix(key, prefix); key, v = c.Next() {
			if src, isChunk := chunkSource(key); !isChunk || string(src) != b.source.Name {
				continue
			}
			rows, long, summed, err := chunkSum(v)
			if err != nil || !summed {
				return ledger.Known{}, false, err
			}
			k.Longest = max(k.Longest, time.Duration(long))
			if whole {
				k.Rows += rows
			}
		}
		if whole {
			continue
		}
		m, err := b.heldHour(h)
		if err != nil {
			return ledger.Known{}, false, err
		}
		for id, e := range m {
			if start := int64(beUint64([]byte(id[:8]))); start < lo || start >= hi {
				continue
			}
			k.Rows += e.n
			if e.overlap {
				k.Rows++
			}
		}
	}
	return k, true, nil
}
