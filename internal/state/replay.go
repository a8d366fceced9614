package state

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/tokenfare/tokenfare/failures"
	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

// ErrNotKept says the state does not keep what a command asks of it: a
// grouping, or the detail of calls written by an older tokenfare. The
// command must read the sources instead.
var ErrNotKept = errors.New("the state does not keep it")

// NotKeptError names what the state does not keep.
type NotKeptError struct {
	Path string // the state file
	What string // what is missing, as a user asks for it
}

func (e *NotKeptError) Error() string {
	return fmt.Sprintf("state %s keeps no %s: read the sources without --state", e.Path, e.What)
}

func (e *NotKeptError) Unwrap() error { return ErrNotKept }

// Fill adds every sum of the state to e, an engine of cat built with
// opts, as e would have priced the calls they sum (Summer, for an engine
// outside a run): the engine's figures are then those of one run over
// every row the state read, to the last digit. tally, when not nil,
// counts the failed calls by class as failures.Tally counts them. It
// fails as Summer's Sum does.
func (s *Store) Fill(e *pricing.Engine, cat *tariffs.Catalog, opts pricing.Options, tally *failures.Tally) error {
	o := ledger.SumOptions{TierBounds: pricing.TierBounds(cat), ByKeyMeta: slices.Contains(opts.Dims, pricing.DimMeta)}
	_, err := s.Summer().Sum(context.Background(), o, &fill{e: e, opts: &opts, tally: tally})
	return err
}

// fill adds a summer's groups to an engine.
type fill struct {
	e     *pricing.Engine
	opts  *pricing.Options
	tally *failures.Tally
}

func (f *fill) Add(g *ledger.Summed) error {
	if err := f.e.AddGroup(g); err != nil {
		return err
	}
	if f.tally != nil && g.As == ledger.SummedFailed && g.First.Compare(f.opts.Since) >= 0 && (f.opts.Until.IsZero() || g.First.Before(f.opts.Until)) {
		f.tally.ObserveSummed(g)
	}
	return nil
}

func (f *fill) Rejected(rows int64) {
	for range rows {
		f.e.Reject()
	}
}

// aggregateOf is a key's sums as the calls a database summed.
func aggregateOf(k *Key, s *Sums) ledger.Aggregate {
	q := &s.Qty
	a := ledger.Aggregate{Gateway: k.Gateway, First: s.Oldest, Last: s.Newest, Model: k.Logged, ModelGroup: k.Group,
		Host: k.HostLogged, PriceKey: k.PriceKey, Key: k.KeyHash, KeyAlias: k.KeyAlias, Team: k.Team, User: k.User, Tags: k.Tags,
		Calls: s.Calls, ServiceTier: k.ServiceTier, Region: k.Region, Recorded: s.Recorded, ZeroSpend: k.Zero,
		Tokens: ledger.Tokens{Input: q[tariffs.Input], CacheRead: q[tariffs.CacheRead], CacheWrite: q[tariffs.CacheWrite],
			CacheWrite1h: q[tariffs.CacheWrite1h], Output: q[tariffs.Output] + q[tariffs.Reasoning], Reasoning: q[tariffs.Reasoning]}}
	a.Tools[ledger.WebSearch], a.Tools[ledger.WebFetch], a.Tools[ledger.FileSearch] = q[tariffs.WebSearch], q[tariffs.WebFetch], q[tariffs.FileSearch]
	if a.First.IsZero() {
		a.First = k.Slot
	}
	if k.Outcome == pricing.Failed {
		a.Status = ledger.StatusFailure
	}
	if k.Band[0] > 0 {
		a.Prompt = k.Band[0] + 1
	}
	return a
}

// splits returns a threshold of bounds (the catalog's now) that lies
// inside band (the thresholds when the calls were read, 0 for none), and
// true: the band's prompts then fall in different tiers.
func splits(bounds []int64, band [2]int64) (int64, bool) {
	for _, b := range bounds {
		if b > band[0] && (band[1] == 0 || b < band[1]) {
			return b, true
		}
	}
	return 0, false
}
