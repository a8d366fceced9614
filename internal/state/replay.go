package state

import (
	"errors"
	"fmt"
	"slices"
	"time"

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
// opts, as e would have priced the calls they sum
// (pricing.Engine.AddSummed): each key's calls land in the bucket their
// calls would, priced at cat, grouped as opts asks; then the rows the
// sources rejected. The engine's figures are then those of one run over
// every row the state read: official cost, recorded spend, quantities
// and calls by outcome, to the last digit. tally, when not nil, counts
// the failed calls by class as failures.Tally counts them.
//
// It fails with a *NotKeptError for a grouping the state does not keep
// (the key's metadata) or a state written before it kept the calls'
// names and groupings, and with pricing.ErrNotExact where the sums cannot
// be priced exactly: a tariff boundary, the window's edge or a
// prompt-size threshold new since the calls were read falls among a
// key's calls.
func (s *Store) Fill(e *pricing.Engine, cat *tariffs.Catalog, opts pricing.Options, tally *failures.Tally) (err error) {
	defer s.recoverDamaged(&err)
	path := s.path
	if slices.Contains(opts.Dims, pricing.DimMeta) {
		return &NotKeptError{Path: path, What: "key metadata (--by meta:FIELD)"}
	}
	bounds := pricing.TierBounds(cat)
	err = s.Each(func(k *Key, sums *Sums) error {
		if !k.Kept {
			return &NotKeptError{Path: path, What: "model names and groupings for the calls it read before this version of tokenfare (remove the file and refresh it again)"}
		}
		a := aggregateOf(k, sums)
		if b, ok := splits(bounds, k.Band); ok {
			return fmt.Errorf("state %s: %w: a prompt-size threshold of %d tokens falls among the prompts of the calls of %s from %s, read when the thresholds were %d and %d",
				path, pricing.ErrNotExact, b, k.Model, k.Slot.Format(time.RFC3339), k.Band[0], k.Band[1])
		}
		if err := e.AddSummed(&a, k.Billing, k.Outcome); err != nil {
			return fmt.Errorf("state %s: %w (its sums are per %s)", path, err, Grain)
		}
		if tally != nil && k.Outcome == pricing.Failed && a.First.Compare(opts.Since) >= 0 && (opts.Until.IsZero() || a.First.Before(opts.Until)) {
			tally.Calls[k.Failure] += sums.Calls
		}
		return nil
	})
	if err != nil {
		return err
	}
	sources, err := s.Sources()
	if err != nil {
		return err
	}
	for _, src := range sources {
		for range src.Rows.Rejected {
			e.Reject()
		}
	}
	return nil
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
