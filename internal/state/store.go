package state

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

// Grain is the width of a slot: calls are summed per 15 minutes of their
// billing instant, the finest step of any catalog tariff's periods.
const Grain = 15 * time.Minute

// Overlap is how far before a source's watermark a refresh reads again,
// for the rows a gateway logs late; the identities of the calls read in
// it tell the ones already counted.
const Overlap = time.Hour

// Key identifies the calls one Sums adds up.
type Key struct {
	Model       string // the tariff model id, or the logged name when no tariff knows it
	Host        string
	Slot        time.Time // start of the Grain the billing instant falls in, UTC
	KeyAlias    string
	Team        string
	Outcome     pricing.Outcome
	ServiceTier ledger.ServiceTier
	Region      string
	// Above is the prompt-size class: the threshold of the tier the call
	// was priced in (0 for the base rates).
	Above int64
	Detail
}

// Detail is what a Key keeps of its calls beyond what serve's metrics
// read, so that the batch commands price the state as they price the
// calls (Replay): the names as logged, the groupings, how the spend and
// the billing instant were recorded. A key written before the state kept
// them has Kept false.
type Detail struct {
	Kept       bool
	Gateway    ledger.Gateway
	Logged     string // the model name as logged (ledger.Call.Model)
	Group      string // the public model group
	PriceKey   string
	HostLogged string // the host as logged (ledger.Call.Host)
	KeyHash    string // the hashed key (ledger.Call.Key)
	User       string
	Tags       string // as ledger.Call.Tags
	Zero       bool   // the gateway recorded zero spend
	Billing    tariffs.BillingTime
	// Band is the prompt-size band: the catalog's tier thresholds (every
	// model's) the prompts lie above and at or below when read, 0 for
	// none.
	Band    [2]int64
	Failure uint8 // the class of a failed call (failures.Class)
}

// Sums are what the calls of one Key add up to.
type Sums struct {
	Calls    int64
	Qty      pricing.Quantities
	Recorded decimal.Decimal // exact sum of the spend the gateway recorded
	Newest   time.Time       // the newest billing instant among them
	Oldest   time.Time       // the oldest; zero in a state written before it was kept
}

// add adds o to s.
func (s *Sums) add(o *Sums) {
	s.Calls += o.Calls
	s.Qty.Add(&o.Qty)
	s.Recorded = s.Recorded.Add(o.Recorded)
	if o.Newest.After(s.Newest) {
		s.Newest = o.Newest
	}
	if s.Oldest.IsZero() || o.Oldest.Before(s.Oldest) {
		s.Oldest = o.Oldest
	}
}

// Source is what the state knows of one source.
type Source struct {
	Name      string
	Watermark time.Time // the newest billing instant read; zero before the first refresh
	Rows      pricing.Rows
	Refreshes int64
	// Late counts the calls read for the first time though billed before
	// the refresh's lookback (Overlap): each was counted in its own slot.
	Late int64
	// Unread are the files of the last refresh that could not be read
	// (not stored: each refresh tries them again).
	Unread []UnreadFile
}

// Store is the state file.
type Store struct {
	path     string
	db       *db
	onCommit func(*Key, *Sums) error
	partKeys int // keys a refresh holds before it flushes (bucketPending)
}

// OnCommit has fn called, after each refresh's commit, with every key the
// commit added to and what it added (not the key's new total): what
// keeps figures made from the sums up to date without reading them all
// again. fn runs in the goroutine that refreshes; its error is returned
// by the refresh, the commit being made.
func (s *Store) OnCommit(fn func(*Key, *Sums) error) { s.onCommit = fn }

// ErrLocked says another process holds the state file: one writer at a
// time (tokenfare serve, or a batch command with --state).
var ErrLocked = errors.New("another process holds it (tokenfare serve, or a command with --state)")

// Open opens (or creates) the state file at path. A second process opening
// the same file waits up to a second, then fails with ErrLocked.
//
// A bbolt file that is not a tokenfare state (ErrNotState: another
// program's, or a newer schema's) is refused, nothing written to it.
// A file that is damaged (cut short, a meta page overwritten, a page that
// makes bbolt panic) is refused with a DamagedError, before it is mapped.
func Open(path string) (s *Store, err error) {
	if err := checkFile(path); err != nil {
		return nil, err
	}
	st := &Store{path: path, partKeys: defaultPartKeys}
	defer func() {
		if err != nil && st.db != nil {
			_ = st.db.close() // the open's error is the one reported
		}
		if err != nil {
			s = nil
		}
	}()
	defer st.Recover(&err)
	if st.db, err = openDB(path); err != nil {
		return nil, err
	}
	mark, err := checkMarker(st.db)
	if err != nil {
		return nil, fmt.Errorf("open state %s: %w", path, err)
	}
	err = st.db.update(func(tx *txn) error {
		if err := makeBuckets(tx); err != nil || !mark {
			return err
		}
		return putMarker(tx)
	})
	if err == nil {
		err = migrateAll(st.db)
	}
	if err == nil {
		err = st.settle(nil) // a refresh cut off before or after its commit
	}
	if err != nil {
		return nil, fmt.Errorf("open state %s: %w", path, err)
	}
	return st, nil
}

// Close flushes and closes the file.
func (s *Store) Close() error { return s.db.close() }

// Source returns what the state knows of the named source (zero when
// nothing yet).
func (s *Store) Source(name string) (_ Source, err error) {
	defer s.Recover(&err)
	out := Source{Name: name}
	err = s.db.view(func(tx *txn) error {
		if v := tx.sources().Get(sourceKey(name)); v != nil {
			return decodeSource(v, &out)
		}
		return nil
	})
	return out, err
}

// Sources returns every source the state knows, by name.
func (s *Store) Sources() (_ []Source, err error) {
	defer s.Recover(&err)
	var out []Source
	err = s.db.view(func(tx *txn) error {
		return tx.sources().ForEach(func(k, v []byte) error {
			src := Source{Name: string(k)}
			if err := decodeSource(v, &src); err != nil {
				return err
			}
			out = append(out, src)
			return nil
		})
	})
	return out, err
}

// Each calls fn with every key and its sums, in the file's order.
func (s *Store) Each(fn func(*Key, *Sums) error) (err error) {
	defer s.Recover(&err)
	return s.db.view(func(tx *txn) error {
		return tx.sums().ForEach(func(k, v []byte) error {
			var key Key
			var sums Sums
			if err := decodeKey(k, &key); err != nil {
				return err
			}
			if err := decodeSums(v, &sums); err != nil {
				return err
			}
			return fn(&key, &sums)
		})
	})
}

// seenKey is the identity of a call as the state keeps it: its start
// (first, big-endian: its hour names its chunk), gateway and the reader's
// identity, as the engine tells duplicates; one allocation.
func seenKey(c *ledger.Call) string {
	var b strings.Builder
	b.Grow(9 + len(c.Gateway) + len(c.Identity))
	var start [8]byte
	binary.BigEndian.PutUint64(start[:], uint64(c.Start.UnixNano()))
	b.Write(start[:])
	b.WriteString(string(c.Gateway))
	b.WriteByte(0)
	b.WriteString(c.Identity)
	return b.String()
}

// errCorrupt is a record of the file that does not decode.
var errCorrupt = errors.New("state: corrupt record")

// The earlier format of the sums' records (record.go has today's), and
// the sources' records: JSON, off the domain types.
type keyRecord struct {
	M string `json:"m"`
	H string `json:"h,omitempty"`
	S int64  `json:"s"`
	K string `json:"k,omitempty"`
	T string `json:"t,omitempty"`
	O uint8  `json:"o"`
	V uint8  `json:"v,omitempty"`
	R string `json:"r,omitempty"`
	A int64  `json:"a,omitempty"`
	// The Detail, when kept.
	X  bool     `json:"x,omitempty"`
	G  string   `json:"g,omitempty"`
	L  string   `json:"l,omitempty"`
	MG string   `json:"mg,omitempty"`
	PK string   `json:"pk,omitempty"`
	HL string   `json:"hl,omitempty"`
	KH string   `json:"kh,omitempty"`
	U  string   `json:"u,omitempty"`
	TG string   `json:"tg,omitempty"`
	Z  bool     `json:"z,omitempty"`
	B  uint8    `json:"b,omitempty"`
	PB [2]int64 `json:"pb,omitzero"`
	F  uint8    `json:"f,omitempty"`
}

type sumsRecord struct {
	Calls    int64   `json:"c"`
	Qty      []int64 `json:"q"`
	Recorded string  `json:"r"`
	Newest   int64   `json:"n"`
	Oldest   int64   `json:"od,omitempty"`
}

type sourceRecord struct {
	Watermark int64      `json:"w"`
	Rows      rowsRecord `json:"rows"`
	Refreshes int64      `json:"refreshes"`
	Late      int64      `json:"late,omitempty"`
}

// rowsRecord is a source's row accounting as stored: the names of
// pricing.Rows's fields when it was first written, kept whatever the
// domain type becomes.
type rowsRecord struct {
	Read      int64 `json:"Read"`
	Priced    int64 `json:"Priced"`
	Unpriced  int64 `json:"Unpriced"`
	Retired   int64 `json:"Retired"`
	Failed    int64 `json:"Failed"`
	Duplicate int64 `json:"Duplicate"`
	Rejected  int64 `json:"Rejected"`
	Outside   int64 `json:"Outside"`
	CacheHit  int64 `json:"CacheHit"`
}

func decodeKeyJSON(b []byte, k *Key) error {
	var r keyRecord
	if err := json.Unmarshal(b, &r); err != nil {
		return fmt.Errorf("%w: key %q: %v", errCorrupt, b, err)
	}
	*k = Key{Model: r.M, Host: r.H, Slot: time.Unix(r.S, 0).UTC(), KeyAlias: r.K, Team: r.T,
		Outcome: pricing.Outcome(r.O), ServiceTier: ledger.ServiceTier(r.V), Region: r.R, Above: r.A,
		Detail: Detail{Kept: r.X, Gateway: ledger.Gateway(r.G), Logged: r.L, Group: r.MG, PriceKey: r.PK, HostLogged: r.HL, KeyHash: r.KH,
			User: r.U, Tags: r.TG, Zero: r.Z, Billing: tariffs.BillingTime(r.B), Band: r.PB, Failure: r.F}}
	return nil
}

func decodeSumsJSON(b []byte, s *Sums) error {
	var r sumsRecord
	if err := json.Unmarshal(b, &r); err != nil {
		return fmt.Errorf("%w: %v", errCorrupt, err)
	}
	d, err := decimal.NewFromString(r.Recorded)
	if err != nil || len(r.Qty) > len(s.Qty) {
		return fmt.Errorf("%w: sums %q", errCorrupt, b)
	}
	*s = Sums{Calls: r.Calls, Recorded: d, Newest: time.Unix(0, r.Newest).UTC()}
	if r.Oldest != 0 {
		s.Oldest = time.Unix(0, r.Oldest).UTC()
	}
	copy(s.Qty[:], r.Qty)
	return nil
}

func encodeSource(s *Source) []byte {
	w := int64(0)
	if !s.Watermark.IsZero() {
		w = s.Watermark.UnixNano()
	}
	r := s.Rows
	rows := rowsRecord{Read: r.Read, Priced: r.Priced, Unpriced: r.Unpriced, Retired: r.Retired, Failed: r.Failed,
		Duplicate: r.Duplicate, Rejected: r.Rejected, Outside: r.Outside, CacheHit: r.CacheHit}
	b, _ := json.Marshal(sourceRecord{Watermark: w, Rows: rows, Refreshes: s.Refreshes, Late: s.Late})
	return b
}

func decodeSource(b []byte, s *Source) error {
	var r sourceRecord
	if err := json.Unmarshal(b, &r); err != nil {
		return fmt.Errorf("%w: source %s: %v", errCorrupt, s.Name, err)
	}
	n := r.Rows
	s.Rows = pricing.Rows{Read: n.Read, Priced: n.Priced, Unpriced: n.Unpriced, Retired: n.Retired, Failed: n.Failed,
		Duplicate: n.Duplicate, Rejected: n.Rejected, Outside: n.Outside, CacheHit: n.CacheHit}
	s.Refreshes, s.Late = r.Refreshes, r.Late
	if r.Watermark != 0 {
		s.Watermark = time.Unix(0, r.Watermark).UTC()
	}
	return nil
}

// beUint64 reads the big-endian start instant that opens a seen key.
func beUint64(b []byte) uint64 {
	if len(b) < 8 {
		return 0
	}
	return binary.BigEndian.Uint64(b)
}
