package savings

import (
	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
)

// Sums are the calls a lever applies to, their official cost as served
// and under the lever. Delays count the off-peak calls by the delay they
// need (zero for the other levers).
type Sums struct {
	Calls  int64
	Served decimal.Decimal
	Under  decimal.Decimal
	Delays [NumDelays]int64
	// served and under are summed exactly in integers, and settled into
	// Served and Under by Result.
	served, under pricing.ExactSum
}

// Saving returns Served − Under: what the lever saves on its calls.
func (s *Sums) Saving() decimal.Decimal { return s.Served.Sub(s.Under) }

// add counts n calls costing served as served and under under the lever.
func (s *Sums) add(served, under ledger.Amount, n int64) {
	s.Calls += n
	s.served.Add(served)
	s.under.Add(under)
}

// merge adds o into s.
func (s *Sums) merge(o *Sums) {
	s.Calls += o.Calls
	s.served.Merge(&o.served)
	s.under.Merge(&o.under)
	for d := range s.Delays {
		s.Delays[d] += o.Delays[d]
	}
}

// settle sets Served and Under from the exact sums.
func (s *Sums) settle() { s.Served, s.Under = s.served.Value(), s.under.Value() }

// Outside counts the calls of a group outside every lever.
type Outside struct {
	Unpriced int64 // no tariff priced the call, or its model was retired
	Failed   int64
	CacheHit int64 // answered from the gateway's own response cache
}

// Total returns the calls outside every lever.
func (o *Outside) Total() int64 { return o.Unpriced + o.Failed + o.CacheHit }

// Line is one group of calls and what each lever would save on them.
type Line struct {
	Key      pricing.GroupKey
	KeyAlias string // the key's alias, when grouped by key and one is known
	// Priced counts the group's priced calls, and Served is their official
	// cost as served.
	Priced int64
	Served decimal.Decimal
	// Levers are each lever alone, indexed by Lever; a lever not asked
	// for stays zero.
	Levers [NumLevers]Sums
	// Best is every call a lever applies to, counted once under its best
	// lever; BestBy counts the calls whose best lever each is.
	Best   Sums
	BestBy [NumLevers]int64
	// Levered is the group's cost with each call under its best lever,
	// or as served when none applies, summed call by call.
	Levered decimal.Decimal
	// Hosts are, for the host lever, the cheapest host of its calls by
	// host name.
	Hosts   map[string]*Sums
	Outside Outside
	// served and levered are summed exactly, settled by Result.
	served, levered pricing.ExactSum
}

// newLine starts the line of group k.
func newLine(k pricing.GroupKey) *Line { return &Line{Key: k} }

// Saving returns the group's combined saving, each call under its best
// lever.
func (l *Line) Saving() decimal.Decimal { return l.Best.Saving() }

// settle sets the line's decimal figures from its exact sums.
func (l *Line) settle() {
	l.Served, l.Levered = l.served.Value(), l.levered.Value()
	for i := range l.Levers {
		l.Levers[i].settle()
	}
	l.Best.settle()
	for _, s := range l.Hosts {
		s.settle()
	}
}

// merge adds o into l (the total line).
func (l *Line) merge(o *Line) {
	l.Priced += o.Priced
	l.served.Merge(&o.served)
	l.levered.Merge(&o.levered)
	for i := range l.Levers {
		l.Levers[i].merge(&o.Levers[i])
		l.BestBy[i] += o.BestBy[i]
	}
	l.Best.merge(&o.Best)
	for h, s := range o.Hosts {
		l.hostSums(h).merge(s)
	}
	l.Outside.Unpriced += o.Outside.Unpriced
	l.Outside.Failed += o.Outside.Failed
	l.Outside.CacheHit += o.Outside.CacheHit
}

// hostSums returns the sums of the calls whose cheapest host is h.
func (l *Line) hostSums(h string) *Sums {
	if l.Hosts == nil {
		l.Hosts = map[string]*Sums{}
	}
	s := l.Hosts[h]
	if s == nil {
		s = &Sums{}
		l.Hosts[h] = s
	}
	return s
}
