package state

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// The marker of a tokenfare state: a bucket holding the schema version
// the file is written in. Open refuses a bbolt file without it (unless
// it is empty, or holds only tokenfare's buckets: a state written before
// the marker) and one of a newer version, writing nothing into it.
var (
	bucketMarker = []byte("tokenfare")
	schemaKey    = []byte("schema")
)

// SchemaVersion is the version of the state's layout this tokenfare
// writes: 1, the buckets below, records as record.go and seen.go encode
// them (older layouts inside them are migrated by Open).
const SchemaVersion = 1

// stateBuckets are every bucket a state holds: sums, sources, ids, seen,
// files, meta, pending and the marker.
func stateBuckets() [][]byte {
	return [][]byte{bucketSums, bucketSources, bucketIDs, bucketSeen, bucketFiles, bucketMeta, bucketPending, bucketMarker}
}

// ErrNotState is inside the error of a file that is not a tokenfare
// state: another program's bbolt file, or a state of a newer schema.
var ErrNotState = errors.New("not a tokenfare state")

// checkMarker reads, without writing, whether the open file is a
// tokenfare state. mark is true when the marker is to be written: a new
// file, or a state written before the marker.
func checkMarker(db *bolt.DB) (mark bool, err error) {
	err = db.View(func(tx *bolt.Tx) error {
		if m := tx.Bucket(bucketMarker); m != nil {
			return checkSchema(m.Get(schemaKey))
		}
		var names []string
		tx.ForEach(func(name []byte, _ *bolt.Bucket) error {
			names = append(names, string(name))
			return nil
		})
		if len(names) == 0 {
			mark = true // new
			return nil
		}
		known := stateBuckets()
		for _, n := range names {
			if !slices.ContainsFunc(known, func(k []byte) bool { return string(k) == n }) {
				return fmt.Errorf("%w: it holds bucket %q, which tokenfare never writes (buckets: %s)", ErrNotState, n, strings.Join(names, ", "))
			}
		}
		if tx.Bucket(bucketSums) == nil || tx.Bucket(bucketSources) == nil {
			return fmt.Errorf("%w: it lacks the sums and sources buckets (buckets: %s)", ErrNotState, strings.Join(names, ", "))
		}
		mark = true // written before the marker
		return nil
	})
	return mark, err
}

// checkSchema checks the marker's schema version.
func checkSchema(v []byte) error {
	n, err := strconv.Atoi(string(v))
	switch {
	case err != nil || n < 1:
		return fmt.Errorf("%w: its marker holds schema %q", ErrNotState, v)
	case n > SchemaVersion:
		return fmt.Errorf("%w of schema %d: a newer tokenfare wrote it (this one writes %d)", ErrNotState, n, SchemaVersion)
	}
	return nil
}

// putMarker writes the marker with SchemaVersion.
func putMarker(tx *bolt.Tx) error {
	m, err := tx.CreateBucketIfNotExists(bucketMarker)
	if err != nil {
		return err
	}
	return m.Put(schemaKey, []byte(strconv.Itoa(SchemaVersion)))
}
