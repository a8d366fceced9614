package state

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/tokenfare/tokenfare/pricing"
)

// TestSpan: the span each commit keeps is the one found over every key,
// after each batch; a state written before the span was kept (no record)
// gives it by a look over every key, and keeps it at its next commit.
func TestSpan(t *testing.T) {
	header, parts := batches(t, 3)
	cat := embedded(t)
	log := filepath.Join(t.TempDir(), "spendlogs.csv")
	s, err := Open(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	feed := wholeFileFeed(log)
	scanned := func() (first, last time.Time) {
		t.Helper()
		err := s.db.view(func(tx *txn) error {
			var err error
			first, last, err = scanSpan(tx)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return first, last
	}
	check := func(when string, wantStored bool) {
		t.Helper()
		first, last, err := s.Span()
		if err != nil {
			t.Fatal(err)
		}
		wf, wl := scanned()
		if !first.Equal(wf) || !last.Equal(wl) || wf.IsZero() {
			t.Errorf("%s: span %s..%s, over every key %s..%s", when, first, last, wf, wl)
		}
		var stored bool
		s.db.view(func(tx *txn) error { _, _, stored = storedSpan(tx); return nil })
		if stored != wantStored {
			t.Errorf("%s: span record kept %v, want %v", when, stored, wantStored)
		}
	}
	for i := range parts {
		writeRows(t, log, header, parts[:i+1]...)
		if _, err := refresh(s, cat, pricing.Options{}, []Feed{feed}); err != nil {
			t.Fatal(err)
		}
		check("after batch "+string(rune('1'+i)), true)
		if i == 0 {
			// As a state written before the span was kept.
			err := s.db.update(func(tx *txn) error { return tx.meta().Delete(spanRecord) })
			if err != nil {
				t.Fatal(err)
			}
			check("without the record", false)
		}
	}
}
