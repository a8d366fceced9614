package state

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// slotKey is a key of model m in the slot at hh:mm on 2 November 2026.
func slotKey(m string, hh, mm int) Key {
	return Key{Model: m, Slot: time.Date(2026, 11, 2, hh, mm, 0, 0, time.UTC), Detail: Detail{Kept: true}}
}

// sumsOf is sums of calls calls and recorded spend.
func sumsOf(calls int64, recorded string) *Sums {
	return &Sums{Calls: calls, Recorded: decimal.RequireFromString(recorded)}
}

// emptyStore opens a new state in a folder of the test.
func emptyStore(t *testing.T) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// sumsText is the calls and recorded spend of every key of a bucket, by
// model, in the order of the keys: "a=5/0.15 b=1/0.01".
func sumsText(t *testing.T, b bucket) string {
	t.Helper()
	var out []string
	err := b.ForEach(func(k, v []byte) error {
		var key Key
		var s Sums
		if err := decodeKey(k, &key); err != nil {
			return err
		}
		if err := decodeSums(v, &s); err != nil {
			return err
		}
		out = append(out, fmt.Sprintf("%s=%d/%s", key.Model, s.Calls, s.Recorded))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(out, " ")
}

// TestAddSums: sums are added to the stored ones of their key when
// looked up, and put as they are for a key known to be new or not
// stored.
func TestAddSums(t *testing.T) {
	tests := []struct {
		name   string
		stored *Sums // nil: the key holds none
		lookup bool
		want   string
	}{
		{name: "stored, looked up", stored: sumsOf(2, "0.10"), lookup: true, want: "a=5/0.15"},
		{name: "none stored", lookup: true, want: "a=3/0.05"},
		// A key of a slot after the last one stored is new: not looked up
		// (were one stored, it would be replaced).
		{name: "stored, known to be new", stored: sumsOf(2, "0.10"), lookup: false, want: "a=3/0.05"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := emptyStore(t)
			k := slotKey("a", 10, 0)
			key := encodeKey(&k)
			err := s.db.update(func(tx *txn) error {
				if tt.stored != nil {
					if err := tx.sums().Put(key, encodeSums(tt.stored)); err != nil {
						return err
					}
				}
				if err := addSums(tx.sums(), key, sumsOf(3, "0.05"), tt.lookup); err != nil {
					return err
				}
				if got := sumsText(t, tx.sums()); got != tt.want {
					t.Errorf("sums %s, want %s", got, tt.want)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestResumeAt: the move starts at the first pending key, or at the one
// after the last moved, whether or not that one is still pending.
func TestResumeAt(t *testing.T) {
	a, b, c, between := slotKey("a", 10, 0), slotKey("b", 11, 0), slotKey("c", 12, 0), slotKey("ab", 10, 30)
	tests := []struct {
		name  string
		moved *Key
		want  string // the model of the key resumed at, "" past the last
	}{
		{name: "none moved", want: "a"},
		{name: "the first moved", moved: &a, want: "b"},
		{name: "a key no longer pending moved", moved: &between, want: "b"},
		{name: "the last moved", moved: &c, want: ""},
	}
	s := emptyStore(t)
	err := s.db.update(func(tx *txn) error {
		p, err := tx.ensure(bucketPending)
		if err != nil {
			return err
		}
		for _, k := range []Key{a, b, c} {
			if err := p.Put(encodeKey(&k), encodeSums(sumsOf(1, "0"))); err != nil {
				return err
			}
		}
		for _, tt := range tests {
			var moved []byte
			if tt.moved != nil {
				moved = encodeKey(tt.moved)
			}
			k, _ := resumeAt(p.Cursor(), moved)
			got := ""
			if k != nil {
				var key Key
				if err := decodeKey(k, &key); err != nil {
					return err
				}
				got = key.Model
			}
			if got != tt.want {
				t.Errorf("%s: resumed at %q, want %q", tt.name, got, tt.want)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// landPending stores sums a (10:00) and c (12:00), pending sums a, b
// (11:00) and c, and marks them landed by a refresh after the slot of
// 11:00: c is a key of that refresh.
func landPending(t *testing.T, s *Store) {
	t.Helper()
	a, b, c := slotKey("a", 10, 0), slotKey("b", 11, 0), slotKey("c", 12, 0)
	err := s.db.update(func(tx *txn) error {
		p, err := tx.ensure(bucketPending)
		if err != nil {
			return err
		}
		puts := []struct {
			b bucket
			k *Key
			s *Sums
		}{
			{tx.sums(), &a, sumsOf(2, "0.10")}, {tx.sums(), &c, sumsOf(9, "0.90")},
			{p, &a, sumsOf(3, "0.05")}, {p, &b, sumsOf(1, "0.01")}, {p, &c, sumsOf(4, "0.5")},
		}
		for _, e := range puts {
			if err := e.b.Put(encodeKey(e.k), encodeSums(e.s)); err != nil {
				return err
			}
		}
		return tx.meta().Put(landedRecord, encodeLanded(b.Slot))
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestMovePart: landed pending sums move two keys a part: the first part
// adds a's to those stored and puts b's, keeps the keys and their pending
// sums (not the totals) and the last key moved; the second moves c, new
// in its refresh (not looked up), and drops the pending sums and their
// records; a third finds nothing landed.
func TestMovePart(t *testing.T) {
	s := emptyStore(t)
	landPending(t, s)
	steps := []struct {
		moved    string // the keys moved and their pending sums
		finished bool
		sums     string // the sums after it
		left     bool   // pending sums and their records left
	}{
		{moved: "a=3/0.05 b=1/0.01", sums: "a=5/0.15 b=1/0.01 c=9/0.9", left: true},
		{moved: "c=4/0.5", finished: true, sums: "a=5/0.15 b=1/0.01 c=4/0.5"},
		{moved: "", finished: true, sums: "a=5/0.15 b=1/0.01 c=4/0.5"},
	}
	for i, st := range steps {
		err := s.db.update(func(tx *txn) error {
			part, err := movePart(tx, 2, true)
			if err != nil {
				return err
			}
			var moved []string
			for j := range part.keys {
				moved = append(moved, fmt.Sprintf("%s=%d/%s", part.keys[j].Model, part.sums[j].Calls, part.sums[j].Recorded))
			}
			if got := strings.Join(moved, " "); got != st.moved || part.finished != st.finished {
				t.Errorf("part %d: moved %q, finished %v; want %q, %v", i+1, got, part.finished, st.moved, st.finished)
			}
			if got := sumsText(t, tx.sums()); got != st.sums {
				t.Errorf("part %d: sums %s, want %s", i+1, got, st.sums)
			}
			left := tx.pending().exists() || tx.meta().Get(landedRecord) != nil || tx.meta().Get(movedRecord) != nil
			if left != st.left {
				t.Errorf("part %d: pending sums or their records left %v, want %v", i+1, left, st.left)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestMovePartKeepsNoKeys: without a caller to report to, a part keeps
// no key; the sums move all the same.
func TestMovePartKeepsNoKeys(t *testing.T) {
	s := emptyStore(t)
	landPending(t, s)
	err := s.db.update(func(tx *txn) error {
		part, err := movePart(tx, 10, false)
		if err != nil {
			return err
		}
		if len(part.keys) != 0 || !part.finished {
			t.Errorf("kept %d keys, finished %v; want none, finished", len(part.keys), part.finished)
		}
		if got, want := sumsText(t, tx.sums()), "a=5/0.15 b=1/0.01 c=4/0.5"; got != want {
			t.Errorf("sums %s, want %s", got, want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestMovePartWithoutPending: sums marked landed with no pending bucket
// are a corrupt state.
func TestMovePartWithoutPending(t *testing.T) {
	s := emptyStore(t)
	err := s.db.update(func(tx *txn) error {
		if err := tx.meta().Put(landedRecord, encodeLanded(time.Unix(0, 0))); err != nil {
			return err
		}
		_, err := movePart(tx, 2, true)
		return err
	})
	if err != errCorrupt {
		t.Errorf("err %v, want errCorrupt", err)
	}
}

// TestSettleReports: settle moves every part and reports each key moved
// once with its pending sums, a part at a time; it drops the pending sums
// of a refresh never committed without moving them.
func TestSettleReports(t *testing.T) {
	t.Run("landed", func(t *testing.T) {
		s := emptyStore(t)
		landPending(t, s)
		s.partKeys = 2
		var got []string
		err := s.settle(func(k *Key, sm *Sums) error {
			got = append(got, fmt.Sprintf("%s=%d/%s", k.Model, sm.Calls, sm.Recorded))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if g, want := strings.Join(got, " "), "a=3/0.05 b=1/0.01 c=4/0.5"; g != want {
			t.Errorf("reported %s, want %s", g, want)
		}
		if waits, err := s.pendingWaits(); err != nil || waits {
			t.Errorf("pending sums wait after settle: %v, %v", waits, err)
		}
	})
	t.Run("never committed", func(t *testing.T) {
		s := emptyStore(t)
		landPending(t, s)
		s.db.update(func(tx *txn) error { return tx.meta().Delete(landedRecord) })
		err := s.settle(func(k *Key, _ *Sums) error {
			t.Errorf("reported %s: nothing was committed", k.Model)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		s.db.view(func(tx *txn) error {
			if got, want := sumsText(t, tx.sums()), "a=2/0.1 c=9/0.9"; got != want || tx.pending().exists() {
				t.Errorf("sums %s, pending %v; want %s, none", got, tx.pending().exists(), want)
			}
			return nil
		})
	})
}
