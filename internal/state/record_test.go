package state

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
)

// encodeKeyJSON is a key in the earlier JSON format (tests write
// states as they were).
func encodeKeyJSON(k *Key) []byte {
	b, _ := json.Marshal(keyRecord{M: k.Model, H: k.Host, S: k.Slot.Unix(), K: k.KeyAlias, T: k.Team,
		O: uint8(k.Outcome), V: uint8(k.ServiceTier), R: k.Region, A: k.Above,
		X: k.Kept, G: string(k.Gateway), L: k.Logged, MG: k.Group, PK: k.PriceKey, HL: k.HostLogged, KH: k.KeyHash, U: k.User, TG: k.Tags,
		Z: k.Zero, B: uint8(k.Billing), PB: k.Band, F: k.Failure})
	return b
}

// encodeSumsJSON is sums in the earlier JSON format.
func encodeSumsJSON(s *Sums) []byte {
	r := sumsRecord{Calls: s.Calls, Qty: s.Qty[:], Recorded: s.Recorded.String(), Newest: s.Newest.UnixNano()}
	if !s.Oldest.IsZero() {
		r.Oldest = s.Oldest.UnixNano()
	}
	b, _ := json.Marshal(r)
	return b
}

// records lists a state's keys and sums as text, in order of the text.
func records(t *testing.T, s *Store) []string {
	t.Helper()
	var out []string
	err := s.Each(func(k *Key, sm *Sums) error {
		out = append(out, fmt.Sprintf("%+v %d %v %s %d %d", *k, sm.Calls, sm.Qty, sm.Recorded, sm.Newest.UnixNano(), sm.Oldest.UnixNano()))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// TestMigrate: a state whose sums are JSON records (as states were
// written before the binary format) is rewritten at Open, a chunk per
// transaction, into the same keys and sums in the binary format; a
// refresh after it gives the full run's figures.
func TestMigrate(t *testing.T) {
	header, parts := batches(t, 3)
	cat := embedded(t)
	dir := t.TempDir()
	log, full := filepath.Join(dir, "spendlogs.csv"), filepath.Join(dir, "full.csv")
	writeRows(t, full, header, parts...)
	want := fullRun(t, cat, full)
	path := filepath.Join(dir, "state.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	feed := wholeFileFeed(log)
	refresh := func(n int) {
		t.Helper()
		writeRows(t, log, header, parts[:n]...)
		if _, err := refresh(s, cat, pricing.Options{}, []Feed{feed}); err != nil {
			t.Fatal(err)
		}
	}
	refresh(2)
	before := records(t, s)
	// Written back as JSON records, as an earlier tokenfare kept them.
	err = s.db.update(func(tx *txn) error {
		sums := tx.sums()
		type kv struct{ k, v []byte }
		var all []kv
		sums.ForEach(func(k, v []byte) error { all = append(all, kv{bytes.Clone(k), bytes.Clone(v)}); return nil })
		for _, r := range all {
			var key Key
			var sm Sums
			if err := decodeKey(r.k, &key); err != nil {
				return err
			}
			if err := decodeSums(r.v, &sm); err != nil {
				return err
			}
			sums.Delete(r.k)
			if err := sums.Put(encodeKeyJSON(&key), encodeSumsJSON(&sm)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	defer func(n int) { migrateChunk = n }(migrateChunk)
	migrateChunk = 7 // several transactions
	if s, err = Open(path); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var left, all int
	s.db.view(func(tx *txn) error {
		return tx.sums().ForEach(func(k, v []byte) error {
			all++
			if jsonRecord(k) || jsonRecord(v) {
				left++
			}
			return nil
		})
	})
	if all <= 7 || left != 0 {
		t.Fatalf("after Open: %d records, %d of them JSON; want more than one chunk, none JSON", all, left)
	}
	if got := records(t, s); !slices.Equal(got, before) {
		t.Errorf("migrated records differ:\n%s", firstDiff(fmt.Sprint(got), fmt.Sprint(before)))
	}
	refresh(3)
	if got := stateTotals(t, s, cat); !got.equal(want) {
		t.Errorf("after a refresh: official %s calls %v, full run %s %v", got.official, got.calls, want.official, want.calls)
	}
}

// TestRecordsRoundTrip: a key and sums with every field set come back
// from their binary records as they were; a record cut short is corrupt.
func TestRecordsRoundTrip(t *testing.T) {
	k := Key{Model: "m", Host: "h", Slot: time.Date(2026, 10, 1, 8, 15, 0, 0, time.UTC), KeyAlias: "ka", Team: "t",
		Outcome: pricing.Failed, ServiceTier: ledger.ServiceTier(2), Region: "eu", Above: 200000,
		Detail: Detail{Kept: true, Gateway: "litellm", Logged: "l", Group: "g", PriceKey: "pk", HostLogged: "hl", KeyHash: "kh",
			User: "u", Tags: "a,b", Zero: true, Billing: 1, Band: [2]int64{128000, 200000}, Failure: 3}}
	sm := Sums{Calls: 3, Recorded: decimal.RequireFromString("0.000000123456789"), Newest: time.Unix(0, 1790000000123456789).UTC(), Oldest: time.Unix(0, 1790000000000000001).UTC()}
	for i := range sm.Qty {
		sm.Qty[i] = int64(i*1000 + 7)
	}
	var k2 Key
	var s2 Sums
	kb, sb := encodeKey(&k), encodeSums(&sm)
	if err := decodeKey(kb, &k2); err != nil || k2 != k {
		t.Errorf("key: %+v, %v; want %+v", k2, err, k)
	}
	if err := decodeSums(sb, &s2); err != nil || s2.Calls != sm.Calls || s2.Qty != sm.Qty || !s2.Recorded.Equal(sm.Recorded) ||
		!s2.Newest.Equal(sm.Newest) || !s2.Oldest.Equal(sm.Oldest) {
		t.Errorf("sums: %+v, %v; want %+v", s2, err, sm)
	}
	if err := decodeKey(kb[:len(kb)-1], &k2); err == nil {
		t.Error("a key cut short decodes")
	}
	if err := decodeSums(sb[:len(sb)-2], &s2); err == nil {
		t.Error("sums cut short decode")
	}
}
