package state

import (
	"bytes"
	"encoding/binary"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"
)

// A refresh that reads more keys than a part (Store.partKeys) does not
// hold them all until its commit: past a part, the batch adds its sums to
// the pending bucket in a transaction of their own and forgets them. The
// commit adds the rest there and, in the transaction that stores the
// source's watermark, identities and marks, marks the pending sums landed.
// They are then moved into the sums a part at a time, each move one
// transaction that also stores how far it got, so that memory holds at
// most a part of keys whatever a refresh reads:
//
//   - killed before the commit, the pending sums were never landed: the
//     next Open (or Begin) drops them and the refresh is read again, as
//     when it held them all;
//   - killed after it, the next Open finishes the move from where the
//     last part left off; the sums are then those of the whole refresh.
//
// A state is read (Fill, Pricer, known) only once no landed sums wait.
var (
	bucketPending = []byte("pending")
	// landedRecord, in bucketMeta, says the pending sums are committed:
	// its value is the last slot (Unix seconds; 1<<62 when the state kept
	// no span) stored before their refresh, after which a key is new.
	landedRecord = []byte("landed")
	// movedRecord, in bucketMeta, is the last pending key moved.
	movedRecord = []byte("landed-moved")
)

// defaultPartKeys is how many keys a refresh holds in memory before it
// adds them to the pending sums: about 600 bytes each (the key's fields,
// its sums and the map's share), some 80 MB.
const defaultPartKeys = 1 << 17

// put is one key of a batch, encoded, with its sums.
type put struct {
	key []byte
	s   *Sums
}

// sortedPuts encodes the batch's keys in their order, widening the
// batch's span and watermark by them: bbolt splits a node only at the
// commit, so puts in random order into a large batch move a growing
// node's entries at each put (quadratic).
func (b *Batch) sortedPuts() []put {
	puts := make([]put, 0, len(b.sums))
	for k, s := range b.sums {
		b.first, b.last = widen(b.first, b.last, k.Slot)
		if s.Newest.After(b.watermark) {
			b.watermark = s.Newest
		}
		s.Recorded = s.recorded.Value()
		puts = append(puts, put{encodeKey(&k), &s.Sums})
	}
	slices.SortFunc(puts, func(x, y put) int { return bytes.Compare(x.key, y.key) })
	return puts
}

// addPending adds puts to the pending sums.
func addPending(tx *bolt.Tx, puts []put) error {
	p, err := tx.CreateBucketIfNotExists(bucketPending)
	if err != nil {
		return err
	}
	p.FillPercent = sumsFill
	for _, e := range puts {
		s := e.s
		if v := p.Get(e.key); v != nil {
			var old Sums
			if err := decodeSums(v, &old); err != nil {
				return err
			}
			old.add(s)
			s = &old
		}
		if err := p.Put(e.key, encodeSums(s)); err != nil {
			return err
		}
	}
	return nil
}

// flush adds the batch's sums to the pending ones in a transaction of its
// own and forgets them. The batch's read-only view is ended around it
// (bbolt's write transaction may need to map the file again, which waits
// for every reader) and begun again: the flush writes no identity.
func (b *Batch) flush() error {
	puts := b.sortedPuts()
	b.tx.Rollback()
	err := b.store.db.Update(func(tx *bolt.Tx) error { return addPending(tx, puts) })
	if tx, berr := b.store.db.Begin(false); berr == nil {
		b.tx = tx
	} else if err == nil {
		err = berr
	}
	if err != nil {
		return err
	}
	b.flushed = true
	b.sums = make(map[Key]*batchSums, len(b.sums))
	return nil
}

// land stores, in the commit's transaction, the batch's last sums in the
// pending ones and marks them landed.
func (b *Batch) land(tx *bolt.Tx, puts []put) error {
	if err := addPending(tx, puts); err != nil {
		return err
	}
	_, stored, ok := storedSpan(tx)
	if !ok {
		stored = time.Unix(1<<62, 0)
	}
	if err := putSpan(tx, b.first, b.last); err != nil {
		return err
	}
	v := binary.BigEndian.AppendUint64(nil, uint64(stored.Unix()))
	return tx.Bucket(bucketMeta).Put(landedRecord, v)
}

// dropPending drops the pending sums of a refresh that was not committed.
func dropPending(tx *bolt.Tx) error {
	if tx.Bucket(bucketMeta).Get(landedRecord) != nil || tx.Bucket(bucketPending) == nil {
		return nil
	}
	return tx.DeleteBucket(bucketPending)
}

// settle drops the pending sums of a refresh not committed, and moves
// those landed into the sums, a part at a time (see bucketPending),
// calling fn, when not nil, with each key moved and its pending sums once
// its part is stored.
func (s *Store) settle(fn func(*Key, *Sums) error) error {
	var waits bool // a view first: most refreshes find nothing pending
	err := s.db.View(func(tx *bolt.Tx) error {
		waits = tx.Bucket(bucketPending) != nil
		return nil
	})
	if err != nil || !waits {
		return err
	}
	if err := s.db.Update(dropPending); err != nil {
		return err
	}
	type moved struct {
		k Key
		s Sums
	}
	var done []moved
	for finished := false; !finished; {
		done = done[:0]
		err := s.db.Update(func(tx *bolt.Tx) error {
			meta := tx.Bucket(bucketMeta)
			lv := meta.Get(landedRecord)
			if len(lv) != 8 {
				finished = true
				return nil
			}
			stored := time.Unix(int64(binary.BigEndian.Uint64(lv)), 0)
			p := tx.Bucket(bucketPending)
			if p == nil {
				return errCorrupt
			}
			c := p.Cursor()
			var k, v []byte
			if from := meta.Get(movedRecord); from == nil {
				k, v = c.First()
			} else if k, v = c.Seek(from); bytes.Equal(k, from) {
				k, v = c.Next()
			}
			sums := tx.Bucket(bucketSums)
			sums.FillPercent = sumsFill
			var last []byte
			for n := 0; k != nil && n < s.partKeys; k, v = c.Next() {
				var add Sums
				if err := decodeSums(v, &add); err != nil {
					return err
				}
				total := add
				if !slotOf(k).After(stored) {
					if old := sums.Get(k); old != nil {
						if err := decodeSums(old, &total); err != nil {
							return err
						}
						total.add(&add)
					}
				}
				if err := sums.Put(k, encodeSums(&total)); err != nil {
					return err
				}
				if fn != nil {
					done = append(done, moved{s: add})
					if err := decodeKey(k, &done[len(done)-1].k); err != nil {
						return err
					}
				}
				last = k
				n++
			}
			if k != nil {
				return meta.Put(movedRecord, bytes.Clone(last))
			}
			finished = true
			if err := tx.DeleteBucket(bucketPending); err != nil {
				return err
			}
			if err := meta.Delete(movedRecord); err != nil {
				return err
			}
			return meta.Delete(landedRecord)
		})
		if err != nil {
			return err
		}
		for i := range done {
			if err := fn(&done[i].k, &done[i].s); err != nil {
				return err
			}
		}
	}
	return nil
}
