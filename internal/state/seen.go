package state

import (
	"bytes"
	"encoding/binary"
	"maps"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"
)

// The identities of the calls read are kept in chunks: one record per
// hour of their start, source and commit, holding the identities that
// commit added or whose copies it raised. A commit writes a few records
// however many calls it read, a lookup reads the chunks of one hour
// once, and a prune drops whole hours.
//
// A chunk's key is the hour (Unix ns of its start, 8 bytes big-endian),
// the source's name, a zero byte and the commit's number (the source's
// refresh count, 8 bytes). Its value is a format byte, then, per
// identity, its seen key (seenKey) and its copies, doubled, plus one when
// it is an overlap (the source gave a call another source gave first),
// as the sums' records write a string and an integer.
var bucketIDs = []byte("ids")

// bucketSeen is the bucket of the earlier format: a record per identity,
// keyed by its seen key (an overlap's followed by two zero bytes and the
// source's name), valued by its copies (8 bytes) and the source's name.
// Open moves it into chunks (migrateSeen).
var bucketSeen = []byte("seen")

const chunkV1 = 0x01

const hourNs = int64(time.Hour)

// hourOf returns the hour (Unix ns) an identity's start falls in.
func hourOf(id string) int64 {
	start := int64(beUint64([]byte(id[:min(8, len(id))])))
	return start - start%hourNs
}

// chunkKey is the key of the chunk of hour, source and commit seq.
func chunkKey(hour int64, source string, seq int64) []byte {
	k := binary.BigEndian.AppendUint64(make([]byte, 0, 17+len(source)), uint64(hour))
	k = append(k, source...)
	k = append(k, 0)
	return binary.BigEndian.AppendUint64(k, uint64(seq))
}

// chunkSource returns the source's name in a chunk's key.
func chunkSource(k []byte) ([]byte, bool) {
	if len(k) < 17 || k[len(k)-9] != 0 {
		return nil, false
	}
	return k[8 : len(k)-9], true
}

// entry is one identity of a chunk.
type entry struct {
	id      string
	n       int64
	overlap bool
}

func encodeChunk(es []entry) []byte {
	r := record{b: []byte{chunkV1}}
	for _, e := range es {
		r.str(e.id)
		v := e.n << 1
		if e.overlap {
			v |= 1
		}
		r.int(v)
	}
	return r.b
}

// eachEntry calls fn with each identity of a chunk.
func eachEntry(v []byte, fn func(id string, n int64, overlap bool)) error {
	if len(v) == 0 || v[0] != chunkV1 {
		return errCorrupt
	}
	f := fields{b: v[1:]}
	for len(f.b) > 0 {
		id, x := f.str(), f.int()
		if f.err != nil || x < 0 {
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
	c := b.tx.Bucket(bucketIDs).Cursor()
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
func lastHeld(tx *bolt.Tx) uint64 {
	k, _ := tx.Bucket(bucketIDs).Cursor().Last()
	if k == nil {
		return 0
	}
	return beUint64(k) + uint64(hourNs) - 1
}

// putChunks writes the batch's new and raised identities in one chunk per
// hour, for commit seq of source. A chunk's identities are in no order:
// a lookup reads them into a map.
func putChunks(tx *bolt.Tx, source string, seq int64, es []entry) error {
	byHour := map[int64][]entry{}
	for _, e := range es {
		h := hourOf(e.id)
		byHour[h] = append(byHour[h], e)
	}
	ids := tx.Bucket(bucketIDs)
	for _, h := range slices.Sorted(maps.Keys(byHour)) {
		if err := ids.Put(chunkKey(h, source, seq), encodeChunk(byHour[h])); err != nil {
			return err
		}
	}
	return nil
}

// pruneChunks drops the chunks of the hours that end at or before limit
// (Unix ns): every identity in them started before it.
func pruneChunks(tx *bolt.Tx, limit int64) error {
	c := tx.Bucket(bucketIDs).Cursor()
	for k, _ := c.First(); k != nil && int64(beUint64(k))+hourNs <= limit; k, _ = c.Next() {
		if err := c.Delete(); err != nil {
			return err
		}
	}
	return nil
}

// migrateSeen moves the identities of the earlier format into chunks
// (commit number 0), an hour of starts a transaction, and removes its
// bucket: a stop midway leaves each hour in one format or the other, and
// the next open goes on; memory holds one hour's identities.
func migrateSeen(db *bolt.DB) error {
	for {
		done, err := migrateSeenHour(db)
		if err != nil || done {
			return err
		}
	}
}

// migrateSeenHour moves the first hour of the earlier format's identities
// into chunks; done once none is left and the bucket is gone.
func migrateSeenHour(db *bolt.DB) (done bool, err error) {
	err = db.Update(func(tx *bolt.Tx) error {
		old := tx.Bucket(bucketSeen)
		if old == nil {
			done = true
			return nil
		}
		c := old.Cursor()
		k, v := c.First()
		if k == nil {
			done = true
			return tx.DeleteBucket(bucketSeen)
		}
		if len(k) < 8 {
			return errCorrupt
		}
		hour := hourOf(string(k))
		bySource := map[string][]entry{}
		var moved [][]byte
		for ; len(k) >= 8 && hourOf(string(k)) == hour; k, v = c.Next() {
			if len(v) < 8 {
				return errCorrupt
			}
			src := string(v[8:])
			e := entry{id: string(k), n: int64(binary.BigEndian.Uint64(v))}
			if suffix := "\x00\x00" + src; len(k) > 8+len(suffix) && bytes.HasSuffix(k, []byte(suffix)) {
				e = entry{id: string(k[:len(k)-len(suffix)]), n: 1, overlap: true}
			}
			bySource[src] = append(bySource[src], e)
			moved = append(moved, bytes.Clone(k))
		}
		if _, err := tx.CreateBucketIfNotExists(bucketIDs); err != nil {
			return err
		}
		for src, es := range bySource {
			if err := putChunks(tx, src, 0, es); err != nil {
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
