package state

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/shopspring/decimal"
)

// The sums' records are binary: a format byte, then the fields in a fixed
// order, strings and integers with their lengths as varints. The keys'
// layout is in schema.go (encodeKey), the sums' below. States written
// before kept JSON records (a '{' first): they are read as such and
// rewritten in this format when the state is opened (migrateSums).

// record builds a binary record.
type record struct{ b []byte }

func (r *record) str(s string) {
	r.b = binary.AppendUvarint(r.b, uint64(len(s)))
	r.b = append(r.b, s...)
}
func (r *record) int(v int64)  { r.b = binary.AppendVarint(r.b, v) }
func (r *record) byte(v uint8) { r.b = append(r.b, v) }
func (r *record) bool(v bool) {
	if v {
		r.b = append(r.b, 1)
	} else {
		r.b = append(r.b, 0)
	}
}

// fields reads a binary record; its first error sticks.
type fields struct {
	b   []byte
	err error
}

func (f *fields) fail() {
	if f.err == nil {
		f.err = errCorrupt
	}
	f.b = nil
}

func (f *fields) str() string {
	n, w := binary.Uvarint(f.b)
	if w <= 0 || uint64(len(f.b)-w) < n {
		f.fail()
		return ""
	}
	s := string(f.b[w : w+int(n)])
	f.b = f.b[w+int(n):]
	return s
}

func (f *fields) int() int64 {
	v, w := binary.Varint(f.b)
	if w <= 0 {
		f.fail()
		return 0
	}
	f.b = f.b[w:]
	return v
}

func (f *fields) byte() uint8 {
	if len(f.b) == 0 {
		f.fail()
		return 0
	}
	v := f.b[0]
	f.b = f.b[1:]
	return v
}

func (f *fields) bool() bool { return f.byte() != 0 }

// encodeSums is the value of a key of bucketSums: recordV1, the calls,
// the quantities (their number first), the recorded spend as a decimal
// string, the newest and oldest billing instants (Unix ns; 0 for none).
func encodeSums(s *Sums) []byte {
	r := record{b: make([]byte, 0, 64)}
	r.byte(recordV1)
	r.int(s.Calls)
	r.int(int64(len(s.Qty)))
	for _, q := range s.Qty {
		r.int(q)
	}
	r.str(s.Recorded.String())
	r.int(s.Newest.UnixNano())
	if s.Oldest.IsZero() {
		r.int(0)
	} else {
		r.int(s.Oldest.UnixNano())
	}
	return r.b
}

func decodeSums(b []byte, s *Sums) error {
	if jsonRecord(b) {
		return decodeSumsJSON(b, s)
	}
	if len(b) < 1 || b[0] != recordV1 {
		return fmt.Errorf("%w: sums %q", errCorrupt, b)
	}
	f := fields{b: b[1:]}
	*s = Sums{Calls: f.int()}
	n := f.int()
	if n < 0 || n > int64(len(s.Qty)) {
		return fmt.Errorf("%w: sums %q", errCorrupt, b)
	}
	for i := range n {
		s.Qty[i] = f.int()
	}
	rec := f.str()
	newest, oldest := f.int(), f.int()
	if f.err != nil || len(f.b) != 0 {
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
