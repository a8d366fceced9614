package state

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
)

// rawState returns the state's sums, sources (without their names: the
// tests' files lie in folders of their own) and span as stored, one line
// a record in the file's order, and whether pending sums wait.
func rawState(t *testing.T, s *Store) (string, bool) {
	t.Helper()
	var b bytes.Buffer
	var pending bool
	err := s.db.view(func(tx *txn) error {
		pending = tx.pending().exists() || tx.meta().Get(landedRecord) != nil
		for _, name := range []bucketName{bucketSums, bucketSources} {
			if err := tx.bucket(name).ForEach(func(k, v []byte) error {
				if name == bucketSources {
					k = nil
				}
				fmt.Fprintf(&b, "%s %x %x\n", name, k, v)
				return nil
			}); err != nil {
				return err
			}
		}
		fmt.Fprintf(&b, "span %x\n", tx.meta().Get(spanRecord))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String(), pending
}

// partsFixture is three batches of calls into one growing file, and the
// cuts between them: calls with every billed quantity (billedCalls), then
// dense calls, a few keys over two days, whose sums a batch adds to in
// several of its parts and a refresh to those of the one before.
func partsFixture() (rows []string, cut []int) {
	rows = append(billedCalls(3000), denseCalls(3000)...)
	return rows, []int{len(rows) / 3, 2 * len(rows) / 3, len(rows)}
}

// denseCalls returns n canonical rows over 2 November 2026 and the day
// after, in order of start: two models and two keys, every prompt in the
// lowest band, so that some 15 calls share each key of the state.
func denseCalls(n int) []string {
	from := time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)
	step := 48 * time.Hour / time.Duration(n)
	models := []string{"deepseek-v4-pro", "gpt-4o"}
	var rows []string
	for i := range n {
		start := from.Add(time.Duration(i) * step)
		rows = append(rows, fmt.Sprintf("d-%d,%s,%s,dk%d,dense-%d,team-d,u-d,%s,%s,,success,0.%04d,%d,%d,0,0,%d,0,0,standard,\n",
			i, start.Format(time.RFC3339), start.Add(3*time.Second).Format(time.RFC3339), i%2, i%2, models[i/2%2], models[i/2%2],
			1+i%9973, 100+i%900, i%50, 10+i%300))
	}
	return rows
}

// refreshAll refreshes s from log after each batch of rows is written,
// summing the calls its commits report.
func refreshAll(t *testing.T, s *Store, log string, rows []string, cut []int) (reported int64) {
	t.Helper()
	cat := embedded(t)
	s.OnCommit(func(_ *Key, sums *Sums) error { reported += sums.Calls; return nil })
	for _, n := range cut {
		writeCanonical(t, log, rows[:n])
		if _, err := refresh(s, cat, pricing.Options{}, []Feed{wholeFileFeed(log)}); err != nil {
			t.Fatal(err)
		}
	}
	return reported
}

// TestPartsAreOneCommit: refreshes that hold at most a few keys in memory
// (flushing to the pending sums hundreds of times and moving them a few
// keys a transaction) leave the state byte for byte as refreshes that
// held all their keys: every sum, every source's rows and watermark, the
// span; the commits report the same calls, and nothing waits pending.
func TestPartsAreOneCommit(t *testing.T) {
	rows, cut := partsFixture()
	open := func(parts int) *Store {
		s, err := Open(filepath.Join(t.TempDir(), "state.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		if parts > 0 {
			s.partKeys = parts
		}
		return s
	}
	whole, parted := open(0), open(7)
	wantCalls := refreshAll(t, whole, filepath.Join(t.TempDir(), "calls.csv"), rows, cut)
	gotCalls := refreshAll(t, parted, filepath.Join(t.TempDir(), "calls.csv"), rows, cut)
	want, _ := rawState(t, whole)
	got, pending := rawState(t, parted)
	if pending {
		t.Error("pending sums are left after the refreshes")
	}
	if got != want {
		t.Errorf("in parts the state differs:\n%.1500s\nheld whole:\n%.1500s", firstDiff(got, want), firstDiff(want, got))
	}
	if gotCalls != wantCalls || wantCalls == 0 {
		t.Errorf("the commits report %d calls in parts, %d held whole", gotCalls, wantCalls)
	}
	if n := int64(len(rows)); gotCalls > n || gotCalls < n*9/10 {
		t.Errorf("the commits report %d calls of %d rows", gotCalls, n)
	}
}

// TestPartsCutOff: a refresh in parts cut off before its commit leaves the
// state as it was (its pending sums dropped when the state is opened
// again), and one cut off after its commit, while its sums were moved,
// has the rest moved when the state is opened again: either way the
// refreshes that follow give the state of refreshes never cut off.
func TestPartsCutOff(t *testing.T) {
	rows, cut := partsFixture()
	cat := embedded(t)
	ref, err := Open(filepath.Join(t.TempDir(), "ref.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	refreshAll(t, ref, filepath.Join(t.TempDir(), "calls.csv"), rows, cut)
	want, _ := rawState(t, ref)

	t.Run("before the commit", func(t *testing.T) {
		path, log := filepath.Join(t.TempDir(), "state.db"), filepath.Join(t.TempDir(), "calls.csv")
		s, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		s.partKeys = 7
		refreshAll(t, s, log, rows, cut[:1])
		before, _ := rawState(t, s)
		// The second batch read and flushed, never committed: the process
		// ends with its pending sums in the file.
		writeCanonical(t, log, rows[:cut[1]])
		b, err := s.Begin(log)
		if err != nil {
			t.Fatal(err)
		}
		b.Use(cat, nil)
		src := ledger.FileSource(log, ledger.Options{})
		if _, err := runEngine(RunInput{Catalog: cat, Options: pricing.Options{Since: b.Floor()}, Sources: []ledger.Source{src}, Observers: []pricing.Observer{b}}); err != nil {
			t.Fatal(err)
		}
		if !b.flushed {
			t.Fatal("the test's batch flushed nothing")
		}
		b.tx.Rollback()
		if _, pending := rawState(t, s); !pending {
			t.Fatal("no pending sums after the flushes")
		}
		s.Close()
		if s, err = Open(path); err != nil {
			t.Fatal(err)
		}
		defer func() { s.Close() }()
		after, pending := rawState(t, s)
		if pending || after != before {
			t.Fatalf("opened again, pending %v, the state changed by the refresh never committed:\n%.1500s", pending, firstDiff(after, before))
		}
		s.partKeys = 7
		refreshAll(t, s, log, rows, cut[1:])
		if got, _ := rawState(t, s); got != want {
			t.Errorf("after the cut: the state differs\n%.1500s", firstDiff(got, want))
		}
	})

	t.Run("after the commit", func(t *testing.T) {
		path, log := filepath.Join(t.TempDir(), "state.db"), filepath.Join(t.TempDir(), "calls.csv")
		s, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		s.partKeys = 7
		refreshAll(t, s, log, rows, cut[:1])
		// The second batch committed; the move stops after its first part.
		errStop := errors.New("cut off")
		s.OnCommit(func(*Key, *Sums) error { return errStop })
		writeCanonical(t, log, rows[:cut[1]])
		if _, err := refresh(s, cat, pricing.Options{}, []Feed{wholeFileFeed(log)}); !errors.Is(err, errStop) {
			t.Fatalf("the refresh: %v", err)
		}
		if _, pending := rawState(t, s); !pending {
			t.Fatal("the move ended in its first part: the test cuts nothing off")
		}
		s.Close()
		if s, err = Open(path); err != nil {
			t.Fatal(err)
		}
		defer func() { s.Close() }()
		if _, pending := rawState(t, s); pending {
			t.Fatal("opened again, pending sums wait")
		}
		s.partKeys = 7
		refreshAll(t, s, log, rows, cut[2:])
		if got, _ := rawState(t, s); got != want {
			t.Errorf("after the cut: the state differs\n%.1500s", firstDiff(got, want))
		}
	})
}

// TestSettleWithNothingPending: a refresh that finds no pending sums
// begins no write transaction for them.
func TestSettleWithNothingPending(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	before := s.db.b.Stats().TxN
	if err := s.settle(nil); err != nil {
		t.Fatal(err)
	}
	if got := s.db.b.Stats().TxN - before; got != 1 {
		t.Errorf("settling with nothing pending began %d transactions, want the 1 read-only view", got)
	}
}
