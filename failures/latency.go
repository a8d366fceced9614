package failures

import (
	"cmp"
	"slices"
	"time"
)

// Span is how many failures fell on one side of the fast threshold, and
// their fastest and slowest latency.
type Span struct {
	Count    int64
	Min, Max time.Duration
}

// add counts one latency into s.
func (s *Span) add(d time.Duration) {
	if s.Count == 0 || d < s.Min {
		s.Min = d
	}
	if s.Count == 0 || d > s.Max {
		s.Max = d
	}
	s.Count++
}

// LatencySplit is how the failed request lines of one route that nothing
// but their latency tells fell either side of the fast threshold: the
// fast ones refused by the gateway, the slow ones upstream.
type LatencySplit struct {
	Route      string
	Fast, Slow Span
}

// splits sums access lines by route.
type splits map[string]*LatencySplit

// add counts a line of route r that took d, fast below fast.
func (s splits) add(r string, d, fast time.Duration) {
	sp := s[r]
	if sp == nil {
		sp = &LatencySplit{Route: r}
		s[r] = sp
	}
	if d < fast {
		sp.Fast.add(d)
	} else {
		sp.Slow.add(d)
	}
}

// sorted returns the splits by route.
func (s splits) sorted() []LatencySplit {
	out := make([]LatencySplit, 0, len(s))
	for _, sp := range s {
		out = append(out, *sp)
	}
	slices.SortFunc(out, func(x, y LatencySplit) int { return cmp.Compare(x.Route, y.Route) })
	return out
}
