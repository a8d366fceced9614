package run_test

import (
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/tokenfare/tokenfare/internal/run"
	"github.com/tokenfare/tokenfare/internal/state"
	"github.com/tokenfare/tokenfare/pricing"
)

// TestDamagedState: a state whose bucket a refresh or a blend reads is
// damaged where opening the file does not read (the root page of the
// identities, the first child page of the sums' root) gives a
// *state.DamagedError naming the file, not a panic, and leaves no
// transaction open: the file closes.
func TestDamagedState(t *testing.T) {
	const sample = "../../testdata/sample/spendlogs-2026-10.csv"
	cat := embedded(t)
	until := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		bucket string // whose page is overwritten
		child  bool   // the root's first child, not the root
		read   func(s *state.Store) error
	}{
		{name: "refresh", bucket: "ids", child: true, read: func(s *state.Store) error {
			_, err := run.Refresh(context.Background(), s, cat, pricing.Options{}, []state.Feed{fileFeed(sample)}, false)
			return err
		}},
		{name: "blend", bucket: "sums", child: true, read: func(s *state.Store) error {
			_, err := run.StateBlend(s, cat, until.Add(-28*24*time.Hour), until, until, nil)
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state.db")
			s, err := state.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := run.Refresh(context.Background(), s, cat, pricing.Options{}, []state.Feed{fileFeed(sample)}, false); err != nil {
				t.Fatal(err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			damagePage(t, path, tt.bucket, tt.child)
			if s, err = state.Open(path); err != nil {
				t.Fatalf("open: %v (the damage must be one only the %s reads)", err, tt.name)
			}
			err = tt.read(s)
			var de *state.DamagedError
			if !errors.As(err, &de) || de.Path != path || !strings.Contains(err.Error(), "reading it failed") {
				t.Errorf("err %v, want a DamagedError of %s", err, path)
			}
			if err := s.Close(); err != nil {
				t.Errorf("close: %v", err)
			}
		})
	}
}

// damagePage overwrites with junk the root page of the named bucket of
// the bbolt file at path, or (child) the first page the root points to.
func damagePage(t *testing.T, path, bucket string, child bool) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var root int64
	err = db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte(bucket))
		if b == nil || b.Root() == 0 {
			return errors.New("no bucket " + bucket + " on a page of its own")
		}
		root = int64(b.Root())
		return nil
	})
	size := int64(db.Info().PageSize)
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if child {
		root = firstChild(t, f, root*size)
	}
	if _, err := f.WriteAt([]byte(strings.Repeat("\xff\x13\x00\x7f", int(size)/4)), root*size); err != nil {
		t.Fatal(err)
	}
}

// firstChild returns the page id of the first element of the branch page
// at off: bbolt's page header (id 8 bytes, flags 2, count 2, overflow
// 4), then the elements (position 4 bytes, key size 4, page id 8).
func firstChild(t *testing.T, f *os.File, off int64) int64 {
	t.Helper()
	var b [32]byte
	if _, err := f.ReadAt(b[:], off); err != nil {
		t.Fatal(err)
	}
	if flags := binary.LittleEndian.Uint16(b[8:]); flags&0x01 == 0 {
		t.Fatalf("page at %d is no branch page (flags %#x): the state is too small for the test", off, flags)
	}
	return int64(binary.LittleEndian.Uint64(b[24:]))
}
