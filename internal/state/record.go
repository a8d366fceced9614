package state

import (
	"bytes"
	"fmt"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/internal/extsort"
)

// The sums' records are binary: a format byte, then the fields in a fixed
// order, strings and integers with their lengths as varints, written and
// read by extsort's Encoder and Decoder. The keys'
// layout is in schema.go (encodeKey), the sums' below. States written
// before kept JSON records (a '{' first): they are read as such and
// rewritten in this format when the state is opened (migrateSums).

// encodeSums is the value of a key of bucketSums: recordV1, the calls,
// the quantities (their number first), the recorded spend as a decimal
// string, the newest and oldest billing instants (Unix ns; 0 for none).
func encodeSums(s *Sums) []byte {
	var r extsort.Encoder
	r.Byte(recordV1)
	r.Varint(s.Calls)
	r.Varint(int64(len(s.Qty)))
	for _, q := range s.Qty {
		r.Varint(q)
	}
	r.String(s.Recorded.String())
	r.Varint(s.Newest.UnixNano())
	if s.Oldest.IsZero() {
		r.Varint(0)
	} else {
		r.Varint(s.Oldest.UnixNano())
	}
	return r.Bytes()
}

func decodeSums(b []byte, s *Sums) error {
	if jsonRecord(b) {
		return decodeSumsJSON(b, s)
	}
	if len(b) < 1 || b[0] != recordV1 {
		return fmt.Errorf("%w: sums %q", errCorrupt, b)
	}
	f := extsort.NewDecoder(b[1:])
	*s = Sums{Calls: f.Varint()}
	n := f.Varint()
	if n < 0 || n > int64(len(s.Qty)) {
		return fmt.Errorf("%w: sums %q", errCorrupt, b)
	}
	for i := range n {
		s.Qty[i] = f.Varint()
	}
	rec := f.Text()
	newest, oldest := f.Varint(), f.Varint()
	if f.End() != nil {
		return fmt.Errorf("%w: sums %q", errCorrupt, b)
	}
	d, err := decimal.NewFromString(rec)
	if err != nil {
		return fmt.Errorf("%w: sums %q", errCorrupt, b)
	}
	s.Recorded, s.Newest = d, time.Unix(0, newest).UTC()
	if oldest != 0 {
		s.Oldest = time.Unix(0, oldest).UTC()
	}
	return nil
}

// migrateChunk is how many JSON records one transaction of migrateSums
// rewrites.
var migrateChunk = 50000

// migrateSums rewrites the sums a state keeps as JSON records (written
// before the binary format) in the binary format, a chunk per
// transaction: a key is rewritten and its JSON record deleted in one, so
// a process stopped midway leaves every key once, in one format or the
// other, and the next Open goes on. Binary keys (format byte 1) sort
// before JSON ones ('{').
func migrateSums(d *db) error {
	for {
		var done bool
		err := d.update(func(tx *txn) (err error) {
			done, err = migrateSumsChunk(tx)
			return err
		})
		if err != nil || done {
			return err
		}
	}
}

// migrateSumsChunk rewrites up to migrateChunk JSON records; done when
// they were the last.
func migrateSumsChunk(tx *txn) (done bool, err error) {
	sums := tx.sums()
	type kv struct{ k, v []byte }
	var chunk []kv
	c := sums.Cursor()
	for k, v := c.Seek([]byte{'{'}); k != nil && len(chunk) < migrateChunk; k, v = c.Next() {
		chunk = append(chunk, kv{bytes.Clone(k), bytes.Clone(v)})
	}
	for _, r := range chunk {
		var key Key
		var s Sums
		if err := decodeKey(r.k, &key); err != nil {
			return false, err
		}
		if err := decodeSums(r.v, &s); err != nil {
			return false, err
		}
		if err := sums.Delete(r.k); err != nil {
			return false, err
		}
		if err := sums.Put(encodeKey(&key), encodeSums(&s)); err != nil {
			return false, err
		}
	}
	return len(chunk) < migrateChunk, nil
}
