package state

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/shopspring/decimal"
	bolt "go.etcd.io/bbolt"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

// The sums' records are binary: a format byte, then the fields in a fixed
// order, strings and integers with their lengths as varints. A key starts
// with its slot, so that a new day's keys lie together at the end of the
// file, and two keys are equal exactly when their records are. States
// written before kept JSON records (a '{' first): they are read as such
// and rewritten in this format when the state is opened (migrate).
const recordV1 = 0x01

// jsonRecord reports whether a record is of the earlier JSON format.
func jsonRecord(b []byte) bool { return len(b) > 0 && b[0] == '{' }

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

func encodeKey(k *Key) []byte {
	r := record{b: make([]byte, 0, 128)}
	r.byte(recordV1)
	r.b = binary.BigEndian.AppendUint64(r.b, uint64(k.Slot.Unix()))
	r.str(k.Model)
	r.str(k.Host)
	r.str(k.KeyAlias)
	r.str(k.Team)
	r.byte(uint8(k.Outcome))
	r.byte(uint8(k.ServiceTier))
	r.str(k.Region)
	r.int(k.Above)
	r.bool(k.Kept)
	r.str(string(k.Gateway))
	r.str(k.Logged)
	r.str(k.Group)
	r.str(k.PriceKey)
	r.str(k.HostLogged)
	r.str(k.KeyHash)
	r.str(k.User)
	r.str(k.Tags)
	r.bool(k.Zero)
	r.byte(uint8(k.Billing))
	r.int(k.Band[0])
	r.int(k.Band[1])
	r.byte(k.Failure)
	return r.b
}

// slotOf returns the slot of a binary key.
func slotOf(key []byte) time.Time {
	return time.Unix(int64(binary.BigEndian.Uint64(key[1:9])), 0).UTC()
}

func decodeKey(b []byte, k *Key) error {
	if jsonRecord(b) {
		return decodeKeyJSON(b, k)
	}
	if len(b) < 9 || b[0] != recordV1 {
		return fmt.Errorf("%w: key %q", errCorrupt, b)
	}
	f := fields{b: b[9:]}
	*k = Key{Slot: time.Unix(int64(binary.BigEndian.Uint64(b[1:9])), 0).UTC()}
	k.Model, k.Host, k.KeyAlias, k.Team = f.str(), f.str(), f.str(), f.str()
	k.Outcome, k.ServiceTier = pricing.Outcome(f.byte()), ledger.ServiceTier(f.byte())
	k.Region, k.Above = f.str(), f.int()
	k.Kept = f.bool()
	k.Gateway, k.Logged, k.Group, k.PriceKey = ledger.Gateway(f.str()), f.str(), f.str(), f.str()
	k.HostLogged, k.KeyHash, k.User, k.Tags = f.str(), f.str(), f.str(), f.str()
	k.Zero, k.Billing = f.bool(), tariffs.BillingTime(f.byte())
	k.Band[0], k.Band[1] = f.int(), f.int()
	k.Failure = f.byte()
	if f.err != nil || len(f.b) != 0 {
		return fmt.Errorf("%w: key %q", errCorrupt, b)
	}
	return nil
}

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

// migrateChunk is how many JSON records one transaction of migrate
// rewrites.
var migrateChunk = 50000

// migrate rewrites the sums a state keeps as JSON records (written
// before the binary format) in the binary format, a chunk per
// transaction: a key is rewritten and its JSON record deleted in one, so
// a process stopped midway leaves every key once, in one format or the
// other, and the next Open goes on. Binary keys (format byte 1) sort
// before JSON ones ('{').
func migrate(db *bolt.DB) error {
	for {
		var done bool
		err := db.Update(func(tx *bolt.Tx) error {
			sums := tx.Bucket(bucketSums)
			type kv struct{ k, v []byte }
			var chunk []kv
			c := sums.Cursor()
			for k, v := c.Seek([]byte{'{'}); k != nil && len(chunk) < migrateChunk; k, v = c.Next() {
				chunk = append(chunk, kv{bytes.Clone(k), bytes.Clone(v)})
			}
			done = len(chunk) < migrateChunk
			for _, r := range chunk {
				var key Key
				var s Sums
				if err := decodeKey(r.k, &key); err != nil {
					return err
				}
				if err := decodeSums(r.v, &s); err != nil {
					return err
				}
				if err := sums.Delete(r.k); err != nil {
					return err
				}
				if err := sums.Put(encodeKey(&key), encodeSums(&s)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil || done {
			return err
		}
	}
}
