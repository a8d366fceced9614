package state

import (
	"errors"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// The storage layer: the only file of the package that calls bbolt. The
// rest reaches the file through db (transactions), txn (the buckets
// schema.go lists, by name) and bucket and cursor (their records), so
// that no bucket is opened that the schema does not list and a change of
// the storage engine touches this file.

// db is the state's bbolt file.
type db struct{ b *bolt.DB }

// mmapReserve is the address space the state file is mapped into when
// opened: only the file's pages are ever read, but a write transaction
// that outgrows the mapping copies every node it has changed to the heap
// (bbolt remaps the file, 1 GiB at a time past its first GiB), which made
// a first refresh of millions of keys allocate tens of gigabytes. 64 GiB
// of address space is nothing on the 64-bit systems tokenfare is built
// for; a larger state is mapped again as it grows.
const mmapReserve = 64 << 30

// openDB opens (or creates) the bbolt file at path, waiting up to a
// second for another process's lock (then ErrLocked).
func openDB(path string) (*db, error) {
	b, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second, InitialMmapSize: mmapReserve})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return nil, fmt.Errorf("open state %s: %w", path, ErrLocked)
	}
	if err != nil {
		return nil, fmt.Errorf("open state %s: %w", path, err)
	}
	return &db{b: b}, nil
}

// close flushes and closes the file.
func (d *db) close() error { return d.b.Close() }

// view runs fn in a read-only transaction.
func (d *db) view(fn func(tx *txn) error) error {
	return d.b.View(func(tx *bolt.Tx) error { return fn(&txn{tx}) })
}

// update runs fn in a write transaction, committed when fn returns nil.
func (d *db) update(fn func(tx *txn) error) error {
	return d.b.Update(func(tx *bolt.Tx) error { return fn(&txn{tx}) })
}

// begin begins a read-only transaction the caller ends with Rollback.
func (d *db) begin() (*txn, error) {
	tx, err := d.b.Begin(false)
	if err != nil {
		return nil, err
	}
	return &txn{tx}, nil
}

// txn is a transaction of the state file.
type txn struct{ tx *bolt.Tx }

// Rollback ends a read-only transaction (or drops a write one).
func (t *txn) Rollback() error { return t.tx.Rollback() }

// bucket returns the named bucket; it does not exist (exists false) when
// the file lacks it. Only schema.go's accessors call it.
func (t *txn) bucket(name bucketName) bucket { return bucket{t.tx.Bucket([]byte(name))} }

// ensure returns the named bucket, created when the file lacks it.
func (t *txn) ensure(name bucketName) (bucket, error) {
	b, err := t.tx.CreateBucketIfNotExists([]byte(name))
	return bucket{b}, err
}

// drop deletes the named bucket and every record in it.
func (t *txn) drop(name bucketName) error { return t.tx.DeleteBucket([]byte(name)) }

// names returns the name of every bucket the file holds, in its order.
func (t *txn) names() []string {
	var out []string
	// The function returns no error, so ForEach returns none.
	_ = t.tx.ForEach(func(name []byte, _ *bolt.Bucket) error {
		out = append(out, string(name))
		return nil
	})
	return out
}

// bucket is one bucket of a transaction.
type bucket struct{ b *bolt.Bucket }

// exists reports whether the file holds the bucket.
func (b bucket) exists() bool { return b.b != nil }

// Get returns the value of key, nil when none; valid until the
// transaction ends.
func (b bucket) Get(key []byte) []byte { return b.b.Get(key) }

// Put sets the value of key.
func (b bucket) Put(key, value []byte) error { return b.b.Put(key, value) }

// Delete deletes key.
func (b bucket) Delete(key []byte) error { return b.b.Delete(key) }

// ForEach calls fn with every record, in the order of the keys.
func (b bucket) ForEach(fn func(k, v []byte) error) error { return b.b.ForEach(fn) }

// fill sets how full the pages the transaction splits are left (bbolt's
// FillPercent, 0.5 by default).
func (b bucket) fill(f float64) { b.b.FillPercent = f }

// Cursor returns a cursor over the bucket's records.
func (b bucket) Cursor() cursor { return cursor{b.b.Cursor()} }

// cursor walks a bucket's records in the order of their keys; each
// method returns a nil key past the last.
type cursor struct{ c *bolt.Cursor }

func (c cursor) First() (k, v []byte)          { return c.c.First() }
func (c cursor) Last() (k, v []byte)           { return c.c.Last() }
func (c cursor) Next() (k, v []byte)           { return c.c.Next() }
func (c cursor) Seek(key []byte) (k, v []byte) { return c.c.Seek(key) }

// Delete deletes the record the cursor is at.
func (c cursor) Delete() error { return c.c.Delete() }
