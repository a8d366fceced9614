package state

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/tokenfare/tokenfare/pricing"
)

// writeFixtures writes the state files of testdata/compat anew. A fixture
// is a state as a tokenfare left it: it is written once, by the
// tokenfare of its layout, and never again (a new layout adds a fixture).
var writeFixtures = flag.Bool("write-fixtures", false, "write the state fixtures of testdata/compat (never over an existing one)")

// updateCompat rewrites what the fixtures hold once opened (NAME.txt),
// for a change that means them to hold otherwise (a new migration): read
// every line of the diff first. Not -update: make golden leaves them be.
var updateCompat = flag.Bool("update-compat", false, "rewrite testdata/compat/*.txt, what the fixtures hold once opened")

// compatFixtures are the states kept in testdata/compat, each with how it
// was made: every layout a tokenfare wrote that Open still reads.
var compatFixtures = []struct {
	name string
	make func(t *testing.T, path string)
}{
	// v1: today's layout (the marker, binary sums, identity chunks, file
	// marks, span), left by a refresh in parts whose move of the pending
	// sums was cut off after its first part: Open moves the rest.
	{name: "v1-pending", make: makeV1Pending},
	// v0: a state written before the marker, its sums JSON records, its
	// identities one record each in the seen bucket, no span kept: Open
	// marks it and runs every migration.
	{name: "v0-json-seen", make: makeV0},
}

// fixtureFeed is a feed of the file calls.csv in the working folder, by
// a path that is the same wherever the fixture is written.
func fixtureFeed() Feed {
	return Feed{Name: "calls", Files: func() ([]string, error) { return []string{"calls.csv"}, nil }}
}

// makeV1Pending refreshes a state three times from a growing file and a
// second feed, the third refresh in parts cut off after its commit.
func makeV1Pending(t *testing.T, path string) {
	cat := embedded(t)
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rows := append(billedCalls(240), denseCalls(240)...)
	cut := []int{160, 320, 480}
	dense := "dense.csv"
	writeCanonical(t, dense, denseCalls(60))
	feeds := []Feed{fixtureFeed(), wholeFileFeed(dense)}
	for i, n := range cut {
		writeCanonical(t, "calls.csv", rows[:n])
		errStop := errors.New("cut off")
		if i == len(cut)-1 {
			s.partKeys = 7
			s.OnCommit(func(*Key, *Sums) error { return errStop })
		}
		if _, err := refresh(s, cat, pricing.Options{}, feeds); err != nil && !errors.Is(err, errStop) {
			t.Fatal(err)
		}
	}
	if _, pending := rawState(t, s); !pending {
		t.Fatal("no pending sums left: the fixture cuts nothing off")
	}
}

// makeV0 refreshes a state twice, then writes it back as a tokenfare
// before the marker, the binary records and the chunks kept it.
func makeV0(t *testing.T, path string) {
	cat := embedded(t)
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	rows := billedCalls(300)
	for _, n := range []int{200, 300} {
		writeCanonical(t, "calls.csv", rows[:n])
		if _, err := refresh(s, cat, pricing.Options{}, []Feed{wholeFileFeed("calls.csv")}); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	toSeenV0(t, path)
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Update(func(tx *bolt.Tx) error {
		if err := toJSONSums(tx.Bucket([]byte(bucketSums))); err != nil {
			return err
		}
		if err := tx.Bucket([]byte(bucketMeta)).Delete(spanRecord); err != nil {
			return err
		}
		return tx.DeleteBucket([]byte(bucketMarker))
	})
	if err != nil {
		t.Fatal(err)
	}
}

// toJSONSums rewrites every record of the sums in the earlier JSON format.
func toJSONSums(sums *bolt.Bucket) error {
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
		if err := sums.Delete(r.k); err != nil {
			return err
		}
		if err := sums.Put(encodeKeyJSON(&key), encodeSumsJSON(&sm)); err != nil {
			return err
		}
	}
	return nil
}

// compact copies the bbolt file from into a new file to, its buckets,
// keys and values as they are: a fixture small enough to keep.
func compact(t *testing.T, from, to string) {
	t.Helper()
	src, err := bolt.Open(from, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := bolt.Open(to, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	if err := bolt.Compact(dst, src, 1<<20); err != nil {
		t.Fatal(err)
	}
}

// dumpState is what a state holds once opened, as text: every bucket's
// records as stored (hex; the sums and the identities, read below, by
// their number and a SHA-256 of them all), then what the store reads of
// them (sources, sums, span, identities).
func dumpState(t *testing.T, s *Store) string {
	t.Helper()
	var b strings.Builder
	err := s.db.b.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, bk *bolt.Bucket) error {
			h, n := sha256.New(), 0
			err := bk.ForEach(func(k, v []byte) error {
				if n := bucketName(name); n == bucketSums || n == bucketIDs {
					fmt.Fprintf(h, "%x %x\n", k, v)
				} else {
					fmt.Fprintf(&b, "%s %x %x\n", name, k, v)
				}
				n++
				return nil
			})
			fmt.Fprintf(&b, "bucket %s: %d records, sha256 %x\n", name, n, h.Sum(nil))
			return err
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	sources, err := s.Sources()
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range sources {
		fmt.Fprintf(&b, "source %s %s %+v %d %d\n", src.Name, src.Watermark.Format(time.RFC3339Nano), src.Rows, src.Refreshes, src.Late)
	}
	for _, r := range records(t, s) {
		fmt.Fprintf(&b, "sums %s\n", r)
	}
	first, last, err := s.Span()
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "span %s %s\n", first.Format(time.RFC3339), last.Format(time.RFC3339))
	for _, e := range heldEntries(t, s) {
		fmt.Fprintf(&b, "held %s\n", e)
	}
	return b.String()
}

// copyFile copies the file at from to to.
func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestCompatFixtures: each state a tokenfare wrote (the files of
// testdata/compat) opens, and holds then, byte for byte, the records it
// held when the fixture was made and opened by the tokenfare of its
// layout, and reads as it read then (testdata/compat/NAME.txt): the
// on-disk format, its migrations and the recovery of a cut-off refresh
// are unchanged. With -write-fixtures, the missing fixtures are made;
// with -update-compat, the dumps are rewritten.
func TestCompatFixtures(t *testing.T) {
	for _, fx := range compatFixtures {
		t.Run(fx.name, func(t *testing.T) {
			db, txt := filepath.Join("testdata", "compat", fx.name+".db"), filepath.Join("testdata", "compat", fx.name+".txt")
			if *writeFixtures {
				writeFixture(t, fx.make, db, txt)
			}
			got := openedDump(t, db)
			if *updateCompat {
				if err := os.WriteFile(txt, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(txt)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("opened, %s holds or reads otherwise than its fixture did:\n%.2000s", db, firstDiff(got, string(want)))
			}
		})
	}
}

// writeFixture makes the fixture db, unless it exists, and its dump txt
// once opened.
func writeFixture(t *testing.T, fill func(t *testing.T, path string), db, txt string) {
	if _, err := os.Stat(db); err == nil {
		t.Logf("%s exists: kept as it is", db)
		return
	}
	wd, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	raw := filepath.Join(t.TempDir(), "raw.db")
	t.Chdir(t.TempDir())
	fill(t, raw)
	t.Chdir(wd)
	if err := os.MkdirAll(filepath.Dir(db), 0o755); err != nil {
		t.Fatal(err)
	}
	compact(t, raw, db)
	if err := os.WriteFile(txt, []byte(openedDump(t, db)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// openedDump opens a copy of the state file at path and dumps it.
func openedDump(t *testing.T, path string) string {
	t.Helper()
	cp := filepath.Join(t.TempDir(), "state.db")
	copyFile(t, path, cp)
	s, err := Open(cp)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	return dumpState(t, s)
}
