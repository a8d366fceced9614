package pricing

import (
	"slices"
	"testing"

	"github.com/tokenfare/tokenfare/ledger"
)

// recordingSeen is a Seen that can prefetch, and keeps the fingerprints it
// is told of and those it is asked about.
type recordingSeen struct {
	memorySeen
	told, asked []uint64
}

func (s *recordingSeen) FirstSeen(fp uint64, ns int64) (bool, error) {
	s.asked = append(s.asked, fp)
	return s.memorySeen.FirstSeen(fp, ns)
}

func (s *recordingSeen) Prefetch(fp uint64, _ int64) { s.told = append(s.told, fp) }

// TestPrefetchTellsTheFingerprintsLookedUp checks that Engine.Prefetch(c)
// tells the identity set the very fingerprints AddPriced(c) then asks
// about, in their order, in the first source and in a later one (salted
// too), and nothing for a call without an identity.
func TestPrefetchTellsTheFingerprintsLookedUp(t *testing.T) {
	cat := testCatalog(t)
	seen := &recordingSeen{memorySeen: memorySeen{}}
	e := New(cat, Options{Seen: seen})
	calls := []ledger.Call{
		call("r1", "flash", "2026-09-01T02:00:00Z", 100, 0, 10),
		call("r2", "flash", "2026-09-01T02:00:01Z", 100, 0, 10),
		call("r2", "flash", "2026-09-01T02:00:01Z", 100, 0, 10), // a duplicate
		call("", "flash", "2026-09-01T02:00:02Z", 100, 0, 10),   // no identity
		call("r3", "flash", "2026-09-01T03:00:00Z", 100, 0, 10),
	}
	for source := range 2 {
		e.NextSource()
		for i := range calls {
			c := calls[i]
			c.IdentityHash = ledger.HashIdentity(c.Identity)
			if c.Identity == "" {
				c.IdentityHash = 0
			}
			seen.told, seen.asked = nil, nil
			e.Prefetch(&c)
			e.AddPriced(&c)
			if source == 0 && i == 0 {
				continue // the gateway's hash is not known before its first call
			}
			// A duplicate found salted is not looked up again unsalted.
			if len(seen.told) < len(seen.asked) || !slices.Equal(seen.told[:len(seen.asked)], seen.asked) {
				t.Errorf("source %d, call %d (%q): told of %x, asked about %x", source, i, c.Identity, seen.told, seen.asked)
			}
		}
	}
}
