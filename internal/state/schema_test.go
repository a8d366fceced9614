package state_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/tokenfare/tokenfare/internal/state"
)

// boltFile writes a bbolt file at a new path, made by fill.
func boltFile(t *testing.T, fill func(tx *bolt.Tx) error) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "other.db")
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(fill); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// fixtureCopy copies a state of testdata/compat to a new path.
func fixtureCopy(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "compat", name))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestOpenNotAState: another program's bbolt file, or a state of a newer
// schema, is refused and left byte for byte as it was; an empty bbolt
// file, or a state written before the marker, opens and is marked.
func TestOpenNotAState(t *testing.T) {
	tests := []struct {
		name    string
		file    func(t *testing.T) string
		refused bool
	}{
		{name: "another program's", refused: true, file: func(t *testing.T) string {
			return boltFile(t, func(tx *bolt.Tx) error {
				b, err := tx.CreateBucket([]byte("widgets"))
				if err != nil {
					return err
				}
				return b.Put([]byte("a"), []byte("b"))
			})
		}},
		{name: "another program's, with a sums bucket", refused: true, file: func(t *testing.T) string {
			return boltFile(t, func(tx *bolt.Tx) error {
				if _, err := tx.CreateBucket([]byte("sums")); err != nil {
					return err
				}
				_, err := tx.CreateBucket([]byte("users"))
				return err
			})
		}},
		{name: "a newer schema", refused: true, file: func(t *testing.T) string {
			return boltFile(t, func(tx *bolt.Tx) error {
				b, err := tx.CreateBucket([]byte("tokenfare"))
				if err != nil {
					return err
				}
				return b.Put([]byte("schema"), []byte("2"))
			})
		}},
		{name: "an empty bbolt file", file: func(t *testing.T) string {
			return boltFile(t, func(*bolt.Tx) error { return nil })
		}},
		// The fixtures of testdata/compat: states as earlier tokenfares
		// left them (compat_test.go checks what they hold once opened).
		{name: "a state of schema 1, a refresh cut off in its move", file: func(t *testing.T) string {
			return fixtureCopy(t, "v1-pending.db")
		}},
		{name: "a state of JSON sums and seen records, without the marker", file: func(t *testing.T) string {
			return fixtureCopy(t, "v0-json-seen.db")
		}},
		{name: "a state written before the marker", file: func(t *testing.T) string {
			path := sampleState(t)
			db, err := bolt.Open(path, 0o600, nil)
			if err != nil {
				t.Fatal(err)
			}
			db.Update(func(tx *bolt.Tx) error { return tx.DeleteBucket([]byte("tokenfare")) })
			db.Close()
			return path
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := tt.file(t)
			before, _ := os.ReadFile(path)
			s, err := state.Open(path)
			if !tt.refused {
				if err != nil {
					t.Fatal(err)
				}
				s.Close()
				db, err := bolt.Open(path, 0o600, nil)
				if err != nil {
					t.Fatal(err)
				}
				defer db.Close()
				db.View(func(tx *bolt.Tx) error {
					if b := tx.Bucket([]byte("tokenfare")); b == nil || string(b.Get([]byte("schema"))) != "1" {
						t.Errorf("no marker of schema 1 written")
					}
					return nil
				})
				return
			}
			if !errors.Is(err, state.ErrNotState) {
				t.Fatalf("err %v, want ErrNotState", err)
			}
			if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
				t.Errorf("the file was written to")
			}
		})
	}
}
