package state

import (
	"bytes"
	"slices"
	"time"
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
//
// The pending sums are bucketPending; landedRecord and movedRecord, in
// bucketMeta, say they are committed and how far their move got
// (schema.go).

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
func addPending(tx *txn, puts []put) error {
	p, err := tx.ensure(bucketPending)
	if err != nil {
		return err
	}
	p.fill(sumsFill)
	for _, e := range puts {
		if err := addSums(p, e.key, e.s, true); err != nil {
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
	err := b.store.db.update(func(tx *txn) error { return addPending(tx, puts) })
	if tx, berr := b.store.db.begin(); berr == nil {
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
func (b *Batch) land(tx *txn, puts []put) error {
	if err := addPending(tx, puts); err != nil {
		return err
	}
	_, stored, ok := storedSpan(tx)
	if !ok {
		stored = noSpan
	}
	if err := putSpan(tx, b.first, b.last); err != nil {
		return err
	}
	return tx.meta().Put(landedRecord, encodeLanded(stored))
}

// dropPending drops the pending sums of a refresh that was not committed.
func dropPending(tx *txn) error {
	if tx.meta().Get(landedRecord) != nil || !tx.pending().exists() {
		return nil
	}
	return tx.drop(bucketPending)
}

// settle drops the pending sums of a refresh not committed, and moves
// those landed into the sums, a part at a time (see bucketPending),
// calling fn, when not nil, with each key moved and its pending sums once
// its part is stored.
func (s *Store) settle(fn func(*Key, *Sums) error) error {
	if waits, err := s.pendingWaits(); err != nil || !waits {
		return err
	}
	if err := s.db.update(dropPending); err != nil {
		return err
	}
	for {
		var part movedPart
		err := s.db.update(func(tx *txn) (err error) {
			part, err = movePart(tx, s.partKeys, fn != nil)
			return err
		})
		if err == nil {
			err = part.report(fn)
		}
		if err != nil || part.finished {
			return err
		}
	}
}

// pendingWaits reports whether pending sums wait, in a read-only view:
// most refreshes find none and begin no write transaction.
func (s *Store) pendingWaits() (waits bool, err error) {
	err = s.db.view(func(tx *txn) error {
		waits = tx.pending().exists()
		return nil
	})
	return waits, err
}

// movedPart is a part of the pending sums moved into the sums: the keys
// and their pending sums (when kept), and whether it was the last.
type movedPart struct {
	keys     []Key
	sums     []Sums
	finished bool
}

// report calls fn, when not nil, with each key of the part and its
// pending sums.
func (p *movedPart) report(fn func(*Key, *Sums) error) error {
	if fn == nil {
		return nil
	}
	for i := range p.keys {
		if err := fn(&p.keys[i], &p.sums[i]); err != nil {
			return err
		}
	}
	return nil
}

// movePart moves up to n landed pending keys, from the one after the last
// moved, into the sums, keeping them in the part when keep is set. The
// last part drops the pending sums and their records; a state with no
// landed sums is finished, unchanged.
func movePart(tx *txn, n int, keep bool) (part movedPart, err error) {
	stored, landed := decodeLanded(tx.meta().Get(landedRecord))
	if !landed {
		part.finished = true
		return part, nil
	}
	pending := tx.pending()
	if !pending.exists() {
		return part, errCorrupt
	}
	sums := tx.sums()
	sums.fill(sumsFill)
	c := pending.Cursor()
	k, v := resumeAt(c, tx.meta().Get(movedRecord))
	var last []byte
	for i := 0; k != nil && i < n; k, v = c.Next() {
		if err := part.move(sums, k, v, stored, keep); err != nil {
			return part, err
		}
		last = k
		i++
	}
	if k != nil {
		return part, tx.meta().Put(movedRecord, bytes.Clone(last))
	}
	part.finished = true
	return part, endMove(tx)
}

// resumeAt returns the first pending key not moved: the first of all when
// none was moved (moved nil), else the one after moved.
func resumeAt(c cursor, moved []byte) (k, v []byte) {
	if moved == nil {
		return c.First()
	}
	if k, v = c.Seek(moved); bytes.Equal(k, moved) {
		return c.Next()
	}
	return k, v
}

// move adds the pending sums v of key k to the sums: to those stored
// when k's slot is no later than stored, the last slot the state held
// before their refresh (a later key is new).
func (p *movedPart) move(sums bucket, k, v []byte, stored time.Time, keep bool) error {
	var add Sums
	if err := decodeSums(v, &add); err != nil {
		return err
	}
	if err := addSums(sums, k, &add, !slotOf(k).After(stored)); err != nil {
		return err
	}
	if !keep {
		return nil
	}
	var key Key
	if err := decodeKey(k, &key); err != nil {
		return err
	}
	p.keys, p.sums = append(p.keys, key), append(p.sums, add)
	return nil
}

// endMove drops the pending sums, all moved, and their records.
func endMove(tx *txn) error {
	if err := tx.drop(bucketPending); err != nil {
		return err
	}
	if err := tx.meta().Delete(movedRecord); err != nil {
		return err
	}
	return tx.meta().Delete(landedRecord)
}
