package state

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
)

// ErrSumsOnly says the state keeps the sums of the calls it read, not
// the calls: it cannot be read row by row.
var ErrSumsOnly = errors.New("the state keeps sums of calls, not the calls")

// Summer returns the state's sums as a ledger.Summer named "state PATH",
// for a run to price (internal/run): it hands the run every key's sums,
// as the calls they sum would have been priced, then the rows the
// sources rejected. The run's figures are then those of one run over
// every row the state read. It keeps no rows: where its sums cannot give
// the exact answer the run fails.
//
// Its Sum fails with a *NotKeptError for a grouping the state does not
// keep (the key's metadata) or a state written before it kept the calls'
// names and groupings, and with pricing.ErrNotExact where the sums cannot
// be priced exactly: a tariff boundary, the window's edge or a prompt-size
// threshold new since the calls were read falls among a key's calls.
func (s *Store) Summer() ledger.Summer { return summer{s} }

type summer struct{ s *Store }

func (m summer) Name() string { return "state " + m.s.path }

func (m summer) Open(context.Context) (ledger.Reader, error) {
	return nil, fmt.Errorf("state %s: %w", m.s.path, ErrSumsOnly)
}

// Identity is the state file's absolute path.
func (m summer) Identity(context.Context) (string, error) {
	p, err := filepath.Abs(m.s.path)
	return "state " + p, err
}

func (m summer) KeepsRows() bool { return false }

// Sum hands to every key's sums; the options' groupings are the run's
// engine's to make, but for the key's metadata, which the state does not
// keep.
func (m summer) Sum(_ context.Context, o ledger.SumOptions, to ledger.SumSink) (_ ledger.Reader, err error) {
	s := m.s
	defer s.Recover(&err)
	path := s.path
	if o.ByKeyMeta {
		return nil, &NotKeptError{Path: path, What: "key metadata (--by meta:FIELD)"}
	}
	var g ledger.Summed
	err = s.Each(func(k *Key, sums *Sums) error {
		if !k.Kept {
			return &NotKeptError{Path: path, What: "model names and groupings for the calls it read before this version of tokenfare (remove the file and refresh it again)"}
		}
		if b, ok := splits(o.TierBounds, k.Band); ok {
			return fmt.Errorf("state %s: %w: a prompt-size threshold of %d tokens falls among the prompts of the calls of %s from %s, read when the thresholds were %d and %d",
				path, pricing.ErrNotExact, b, k.Model, k.Slot.Format(time.RFC3339), k.Band[0], k.Band[1])
		}
		g = ledger.Summed{Aggregate: aggregateOf(k, sums), BilledBy: k.Billing, As: summedAs(k.Outcome),
			Failure: k.Failure, Classed: k.Outcome == pricing.Failed}
		if err := to.Add(&g); err != nil {
			return fmt.Errorf("state %s: %w (its sums are per %s)", path, err, Grain)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sources, err := s.Sources()
	if err != nil {
		return nil, err
	}
	for _, src := range sources {
		to.Rejected(src.Rows.Rejected)
	}
	return nil, nil
}

// summedAs is what the calls of a key of outcome o were when read.
func summedAs(o pricing.Outcome) ledger.SummedAs {
	switch o {
	case pricing.Failed:
		return ledger.SummedFailed
	case pricing.Duplicate:
		return ledger.SummedDuplicate
	case pricing.Overlap:
		return ledger.SummedOverlap
	case pricing.CacheHit:
		return ledger.SummedCacheHit
	}
	return ledger.SummedNew
}
