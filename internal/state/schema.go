package state

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tokenfare/tokenfare/internal/extsort"
	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

// The schema of the state file: every bucket, the layout of its keys (the
// encode and decode functions below), the formats of its values and
// their versions, and the migrations Open runs, in order. A bucket not
// listed here is never opened (the storage layer, storage.go, is reached
// only through the accessors below). docs/state-format.md describes the
// format for users and says how to change it.

// SchemaVersion is the version of the state's layout this tokenfare
// writes, kept in the marker: 1, the buckets below, their records in the
// formats below (older formats inside them are migrated by Open). It
// changes only when a tokenfare of this version could not read what a
// newer one writes: Open refuses a state of a newer version.
const SchemaVersion = 1

// bucketName is the name of a bucket of the state file.
type bucketName string

// The buckets of a state.
const (
	// bucketMarker: the marker of a tokenfare state. Key schemaKey, value
	// the schema version in decimal ("1").
	bucketMarker bucketName = "tokenfare"
	// bucketSums: the sums per key. Key encodeKey (a format byte, the
	// slot, the Key's fields), value encodeSums (record.go). Records of
	// the earlier JSON format open with '{' (migrateSums rewrites them).
	bucketSums bucketName = "sums"
	// bucketSources: what the state knows of each source. Key sourceKey
	// (the name), value encodeSource (store.go, JSON).
	bucketSources bucketName = "sources"
	// bucketIDs: the identities read, in chunks. Key chunkKey (hour,
	// source, commit), value encodeChunk (seen.go, chunkV1 or chunkV2).
	bucketIDs bucketName = "ids"
	// bucketSeen: the identities of the earlier format, one record each
	// (decodeSeenV0); migrateSeen moves them into bucketIDs and deletes
	// the bucket. Never written.
	bucketSeen bucketName = "seen"
	// bucketFiles: where the last refresh left each file of a feed. Key
	// fileKey (feed, path), value a fileMark (files.go, JSON).
	bucketFiles bucketName = "files"
	// bucketMeta: records of the whole state: spanRecord, landedRecord,
	// movedRecord.
	bucketMeta bucketName = "meta"
	// bucketPending: the sums of a refresh in parts (parts.go), keys and
	// values as in bucketSums; present only while a refresh in parts
	// runs or its sums wait to be moved.
	bucketPending bucketName = "pending"
)

// bucketSpec is one bucket of the schema.
type bucketSpec struct {
	name bucketName
	// made: Open makes it in every state; otherwise it is made when
	// first written (pending, the marker) or never (seen).
	made bool
}

// schema lists every bucket a state may hold.
var schema = []bucketSpec{
	{name: bucketMarker},
	{name: bucketSums, made: true},
	{name: bucketSources, made: true},
	{name: bucketIDs, made: true},
	{name: bucketSeen},
	{name: bucketFiles, made: true},
	{name: bucketMeta, made: true},
	{name: bucketPending},
}

// The buckets, through the storage layer.
func (t *txn) marker() bucket  { return t.bucket(bucketMarker) }
func (t *txn) sums() bucket    { return t.bucket(bucketSums) }
func (t *txn) sources() bucket { return t.bucket(bucketSources) }
func (t *txn) ids() bucket     { return t.bucket(bucketIDs) }
func (t *txn) seen() bucket    { return t.bucket(bucketSeen) }
func (t *txn) files() bucket   { return t.bucket(bucketFiles) }
func (t *txn) meta() bucket    { return t.bucket(bucketMeta) }
func (t *txn) pending() bucket { return t.bucket(bucketPending) }

// makeBuckets makes the buckets Open makes in every state.
func makeBuckets(tx *txn) error {
	for _, b := range schema {
		if !b.made {
			continue
		}
		if _, err := tx.ensure(b.name); err != nil {
			return err
		}
	}
	return nil
}

// The records of bucketMeta.
var (
	// spanRecord: the first and last slot the sums hold (encodeSpan).
	// Kept since the span was; a state without it is scanned (scanSpan)
	// and gets it at its next commit.
	spanRecord = []byte("span")
	// landedRecord: the pending sums are committed (encodeLanded: the
	// last slot stored before their refresh).
	landedRecord = []byte("landed")
	// movedRecord: the last pending key moved into the sums (a key of
	// bucketPending).
	movedRecord = []byte("landed-moved")
)

// The key of the marker's record.
var schemaKey = []byte("schema")

// The format bytes that open the records.
const (
	recordV1 = 0x01 // a key or sums of bucketSums and bucketPending
	chunkV1  = 0x01 // a chunk of identities without rows (moved from bucketSeen)
	chunkV2  = 0x02 // a chunk with the rows and the longest call of its commit
)

// jsonRecord reports whether a record of bucketSums is of the earlier
// JSON format.
func jsonRecord(b []byte) bool { return len(b) > 0 && b[0] == '{' }

// sourceKey is the key of a source in bucketSources: its name.
func sourceKey(name string) []byte { return []byte(name) }

// encodeKey is a Key as the key of its sums: recordV1, the slot (Unix
// seconds, 8 bytes big-endian: a new day's keys lie together at the end
// of the file), then the fields in a fixed order, strings and integers
// with their lengths as varints (record.go). Two keys are equal exactly
// when their records are.
func encodeKey(k *Key) []byte {
	var r extsort.Encoder
	r.Byte(recordV1)
	r.Uint64(uint64(k.Slot.Unix()))
	r.String(k.Model)
	r.String(k.Host)
	r.String(k.KeyAlias)
	r.String(k.Team)
	r.Byte(uint8(k.Outcome))
	r.Byte(uint8(k.ServiceTier))
	r.String(k.Region)
	r.Varint(k.Above)
	r.Bool(k.Kept)
	r.String(string(k.Gateway))
	r.String(k.Logged)
	r.String(k.Group)
	r.String(k.PriceKey)
	r.String(k.HostLogged)
	r.String(k.KeyHash)
	r.String(k.User)
	r.String(k.Tags)
	r.Bool(k.Zero)
	r.Byte(uint8(k.Billing))
	r.Varint(k.Band[0])
	r.Varint(k.Band[1])
	r.Byte(k.Failure)
	return r.Bytes()
}

// slotOf returns the slot of a binary key.
func slotOf(key []byte) time.Time {
	return time.Unix(int64(binary.BigEndian.Uint64(key[1:9])), 0).UTC()
}

// decodeKey decodes a key of bucketSums, binary or JSON.
func decodeKey(b []byte, k *Key) error {
	if jsonRecord(b) {
		return decodeKeyJSON(b, k)
	}
	if len(b) < 9 || b[0] != recordV1 {
		return fmt.Errorf("%w: key %q", errCorrupt, b)
	}
	f := extsort.NewDecoder(b[9:])
	*k = Key{Slot: slotOf(b)}
	k.Model, k.Host, k.KeyAlias, k.Team = f.Text(), f.Text(), f.Text(), f.Text()
	k.Outcome, k.ServiceTier = pricing.Outcome(f.Byte()), ledger.ServiceTier(f.Byte())
	k.Region, k.Above = f.Text(), f.Varint()
	k.Kept = f.Bool()
	k.Gateway, k.Logged, k.Group, k.PriceKey = ledger.Gateway(f.Text()), f.Text(), f.Text(), f.Text()
	k.HostLogged, k.KeyHash, k.User, k.Tags = f.Text(), f.Text(), f.Text(), f.Text()
	k.Zero, k.Billing = f.Bool(), tariffs.BillingTime(f.Byte())
	k.Band[0], k.Band[1] = f.Varint(), f.Varint()
	k.Failure = f.Byte()
	if f.End() != nil {
		return fmt.Errorf("%w: key %q", errCorrupt, b)
	}
	return nil
}

// chunkKey is the key of the chunk of hour (Unix ns of its start),
// source and commit seq in bucketIDs: the hour (8 bytes big-endian), the
// source's name, a zero byte and seq (8 bytes big-endian).
func chunkKey(hour int64, source string, seq int64) []byte {
	k := binary.BigEndian.AppendUint64(make([]byte, 0, 17+len(source)), uint64(hour))
	k = append(k, source...)
	k = append(k, 0)
	return binary.BigEndian.AppendUint64(k, uint64(seq))
}

// chunkSource returns the source's name in a chunk's key.
func chunkSource(k []byte) ([]byte, bool) {
	if len(k) < 17 || k[len(k)-9] != 0 {
		return nil, false
	}
	return k[8 : len(k)-9], true
}

// chunkHour returns the hour (Unix ns) of a chunk's key: its first 8 bytes.
func chunkHour(k []byte) uint64 { return beUint64(k) }

// decodeSeenV0 decodes a record of bucketSeen: the key is the identity's
// seen key (seenKey), followed, for an overlap, by two zero bytes and the
// source's name; the value the copies (8 bytes big-endian) and the
// source's name.
func decodeSeenV0(k, v []byte) (source string, e entry, err error) {
	if len(k) < 8 || len(v) < 8 {
		return "", entry{}, errCorrupt
	}
	source = string(v[8:])
	e = entry{id: string(k), n: int64(binary.BigEndian.Uint64(v))}
	if suffix := "\x00\x00" + source; len(k) > 8+len(suffix) && bytes.HasSuffix(k, []byte(suffix)) {
		e = entry{id: string(k[:len(k)-len(suffix)]), n: 1, overlap: true}
	}
	return source, e, nil
}

// fileKey is the key of a file's mark in bucketFiles: the feed's name, a
// zero byte, the file's path; fileKey(feed, "") is the prefix of the
// feed's marks.
func fileKey(feed, path string) []byte {
	return append(append([]byte(feed), 0), path...)
}

// encodeSpan is spanRecord's value: the first and last slot, Unix
// seconds, 8 bytes big-endian each; 16 zero bytes for none.
func encodeSpan(first, last time.Time) []byte {
	v := make([]byte, 16)
	if !first.IsZero() {
		binary.BigEndian.PutUint64(v, uint64(first.Unix()))
		binary.BigEndian.PutUint64(v[8:], uint64(last.Unix()))
	}
	return v
}

// decodeSpan decodes spanRecord's value; ok false when it is not one.
func decodeSpan(v []byte) (first, last time.Time, ok bool) {
	if len(v) != 16 {
		return first, last, false
	}
	return unixOrZero(int64(binary.BigEndian.Uint64(v))), unixOrZero(int64(binary.BigEndian.Uint64(v[8:]))), true
}

// noSpan is the last slot stored landedRecord keeps for a state that
// kept no span: every key is looked up.
var noSpan = time.Unix(1<<62, 0)

// encodeLanded is landedRecord's value: the last slot stored before the
// pending sums' refresh, Unix seconds, 8 bytes big-endian.
func encodeLanded(stored time.Time) []byte {
	return binary.BigEndian.AppendUint64(nil, uint64(stored.Unix()))
}

// decodeLanded decodes landedRecord's value; ok false when there is none.
func decodeLanded(v []byte) (stored time.Time, ok bool) {
	if len(v) != 8 {
		return time.Time{}, false
	}
	return time.Unix(int64(binary.BigEndian.Uint64(v)), 0), true
}

// migration is one step that rewrites records of an earlier format.
type migration struct {
	name string
	run  func(d *db) error
}

// migrations are run by every Open, in this order, once the marker is
// checked and the buckets made. Each finds its own work (records of an
// earlier format), does it a part per transaction, so that a process
// stopped midway leaves every record once, in one format or the other,
// and the next Open goes on; with no work left it writes nothing. A
// state of any earlier layout thus opens; none changes SchemaVersion (an
// older tokenfare of version 1 reads the formats they write).
//
// After them, Open moves the sums of a refresh in parts cut off after its
// commit (settle): a recovery, not a migration.
var migrations = []migration{
	// The sums' JSON records, rewritten in the binary format (record.go).
	{name: "sums-binary", run: migrateSums},
	// The identities of bucketSeen, moved into chunks of bucketIDs
	// (commit 0, chunkV1), the bucket deleted (seen.go).
	{name: "seen-chunks", run: migrateSeen},
}

// migrateAll runs the migrations in order.
func migrateAll(d *db) error {
	for _, m := range migrations {
		if err := m.run(d); err != nil {
			return err
		}
	}
	return nil
}

// ErrNotState is inside the error of a file that is not a tokenfare
// state: another program's bbolt file, or a state of a newer schema.
var ErrNotState = errors.New("not a tokenfare state")

// checkMarker reads, without writing, whether the open file is a
// tokenfare state. Open refuses a bbolt file without the marker (unless
// it is empty, or holds only buckets of the schema: a state written
// before the marker) and one of a newer version, writing nothing into
// it. mark is true when the marker is to be written: a new file, or a
// state written before the marker.
func checkMarker(d *db) (mark bool, err error) {
	err = d.view(func(tx *txn) error {
		if m := tx.marker(); m.exists() {
			return checkSchema(m.Get(schemaKey))
		}
		names := tx.names()
		if len(names) == 0 {
			mark = true // new
			return nil
		}
		for _, n := range names {
			if !listed(n) {
				return fmt.Errorf("%w: it holds bucket %q, which tokenfare never writes (buckets: %s)", ErrNotState, n, strings.Join(names, ", "))
			}
		}
		if !tx.sums().exists() || !tx.sources().exists() {
			return fmt.Errorf("%w: it lacks the sums and sources buckets (buckets: %s)", ErrNotState, strings.Join(names, ", "))
		}
		mark = true // written before the marker
		return nil
	})
	return mark, err
}

// listed reports whether the schema lists a bucket of that name.
func listed(name string) bool {
	return slices.ContainsFunc(schema, func(b bucketSpec) bool { return string(b.name) == name })
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
func putMarker(tx *txn) error {
	m, err := tx.ensure(bucketMarker)
	if err != nil {
		return err
	}
	return m.Put(schemaKey, []byte(strconv.Itoa(SchemaVersion)))
}
