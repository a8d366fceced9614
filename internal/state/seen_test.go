package state

import (
	"encoding/binary"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
)

// heldEntries lists the identities of a state's chunks, one line each:
// source, seen key, copies, overlap.
func heldEntries(t *testing.T, s *Store) []string {
	t.Helper()
	var out []string
	err := s.db.view(func(tx *txn) error {
		return tx.ids().ForEach(func(k, v []byte) error {
			src, ok := chunkSource(k)
			if !ok {
				return errCorrupt
			}
			return eachEntry(v, func(id string, n int64, overlap bool) {
				out = append(out, fmt.Sprintf("%s %q %d %v", src, id, n, overlap))
			})
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// toSeenV0 rewrites a state's chunks in the earlier format, a record per
// identity in the seen bucket, as a state written before chunks holds them.
func toSeenV0(t *testing.T, path string) {
	t.Helper()
	d, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	err = d.Update(func(tx *bolt.Tx) error {
		seen, err := tx.CreateBucket([]byte(bucketSeen))
		if err != nil {
			return err
		}
		err = tx.Bucket([]byte(bucketIDs)).ForEach(func(k, v []byte) error {
			src, _ := chunkSource(k)
			var perr error
			err := eachEntry(v, func(id string, n int64, overlap bool) {
				key := id
				if overlap {
					key += "\x00\x00" + string(src)
				}
				if err := seen.Put([]byte(key), append(binary.BigEndian.AppendUint64(nil, uint64(n)), src...)); err != nil {
					perr = err
				}
			})
			if err != nil {
				return err
			}
			return perr
		})
		if err != nil {
			return err
		}
		return tx.DeleteBucket([]byte(bucketIDs))
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Two sources give five calls alike; the state is written in the earlier
// format between two refreshes, and an open that moves it stops after an
// hour: opened again, it holds the same identities, and the second
// refresh, which reads every row again, counts none twice.
func TestMigrateSeen(t *testing.T) {
	cat := embedded(t)
	rows := billedCalls(600)
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.csv"), filepath.Join(dir, "b.csv")
	writeCanonical(t, a, rows[:300])
	writeCanonical(t, b, rows[295:310])
	statePath := filepath.Join(dir, "state.db")
	var feeds []Feed
	for _, p := range []string{a, b} {
		feeds = append(feeds, wholeFileFeed(p))
	}
	s, err := Open(statePath)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := refresh(s, cat, pricing.Options{}, feeds); err != nil {
		t.Fatal(err)
	}
	before := heldEntries(t, s)
	overlaps := 0
	for _, e := range before {
		if e[len(e)-4:] == "true" {
			overlaps++
		}
	}
	if len(before) < 20 || overlaps != 5 {
		t.Fatalf("the test's data: %d identities, %d overlaps, want at least 20 and 5", len(before), overlaps)
	}
	// Each identity kept of a's calls is one row: a file gives no copies.
	var ofA int64
	for _, e := range before {
		if strings.HasPrefix(e, a+" ") {
			ofA++
		}
	}
	if k, ok := knownAll(t, s, a); !ok || k.Rows != ofA || k.Longest <= 0 {
		t.Errorf("known of %s before the move: %+v, ok %v; want the %d rows kept and their longest call", a, k, ok, ofA)
	}
	s.Close()
	toSeenV0(t, statePath)
	// An open stopped after its first hour: the next one goes on.
	d, err := bolt.Open(statePath, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if done, err := migrateSeenHour(&db{b: d}); err != nil || done {
		t.Fatalf("first hour moved: done %v, %v; want more hours to move", done, err)
	}
	d.View(func(tx *bolt.Tx) error {
		if tx.Bucket([]byte(bucketSeen)).Stats().KeyN == 0 || tx.Bucket([]byte(bucketIDs)).Stats().KeyN == 0 {
			t.Error("after one hour moved, want identities in both formats")
		}
		return nil
	})
	d.Close()

	if s, err = Open(statePath); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if after := heldEntries(t, s); !slices.Equal(after, before) {
		t.Fatalf("after migration %d identities, before %d; first: %v", len(after), len(before), firstDiff(fmt.Sprint(after), fmt.Sprint(before)))
	}
	s.db.view(func(tx *txn) error {
		if tx.seen().exists() {
			t.Error("the earlier format's bucket is still there")
		}
		return nil
	})
	if k, ok := knownAll(t, s, a); ok {
		t.Errorf("known of %s after the move: %+v, ok; want not known (the earlier format keeps no rows)", a, k)
	}
	if _, err := refresh(s, cat, pricing.Options{}, feeds); err != nil {
		t.Fatal(err)
	}
	sameAsOneRun(t, s, cat, a, b)
}

// knownAll is what the chunks know of source's calls over every hour
// they hold.
func knownAll(t *testing.T, s *Store, source string) (ledger.Known, bool) {
	t.Helper()
	var first, last int64
	s.db.view(func(tx *txn) error {
		c := tx.ids().Cursor()
		if k, _ := c.First(); k != nil {
			first = int64(binary.BigEndian.Uint64(k))
		}
		if k, _ := c.Last(); k != nil {
			last = int64(binary.BigEndian.Uint64(k))
		}
		return nil
	})
	b, err := s.Begin(source)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Abort()
	k, ok, err := b.Known(time.Unix(0, first), time.Unix(0, last+hourNs))
	if err != nil {
		t.Fatal(err)
	}
	return k, ok
}

// A refresh that reads again only calls it counted stores no identity:
// the chunks hold what the first refresh wrote.
func TestRereadStoresNoIdentity(t *testing.T) {
	cat := embedded(t)
	dir := t.TempDir()
	log := filepath.Join(dir, "a.csv")
	writeCanonical(t, log, billedCalls(200))
	s, err := Open(filepath.Join(dir, "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	feed := wholeFileFeed(log)
	var chunks []int
	for range 3 {
		if _, err := refresh(s, cat, pricing.Options{}, []Feed{feed}); err != nil {
			t.Fatal(err)
		}
		n := 0
		s.db.b.View(func(tx *bolt.Tx) error {
			n = tx.Bucket([]byte(bucketIDs)).Stats().KeyN
			return nil
		})
		chunks = append(chunks, n)
	}
	if chunks[0] == 0 || chunks[1] != chunks[0] || chunks[2] != chunks[0] {
		t.Errorf("chunks after each refresh: %v, want the first refresh's alone", chunks)
	}
	if got, want := stateTotals(t, s, cat), fullRun(t, cat, log); !got.equal(want) {
		t.Errorf("state: official %s calls %v, one run: official %s calls %v", got.official, got.calls, want.official, want.calls)
	}
}
