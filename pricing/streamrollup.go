package pricing

import (
	"slices"
)

// streamedRollups returns, for each of views, the engine's groups rolled
// up by that view's dimensions, in Reconcile's order: what
// e.Rollup(view).groups() gives, from an engine that spilled its groups
// (Options.Runs), whose buckets no longer hold them. The groups are
// read once, from the runs and the buckets since, and summed exactly
// into one map per view: memory holds the groups of the views, not of
// the engine (a month's keys, not its keys by day).
func (e *Engine) streamedRollups(views ...[]Dim) ([][]Group, error) {
	sums := make([]map[GroupKey]*groupSum, len(views))
	for i := range sums {
		sums[i] = map[GroupKey]*groupSum{}
	}
	for s, err := range e.groupSums() {
		if err != nil {
			return nil, err
		}
		for i, dims := range views {
			k := rolledKey(&s.g.Key, dims)
			t := sums[i][k]
			if t == nil {
				t = &groupSum{g: Group{Key: k}}
				sums[i][k] = t
			}
			t.merge(s)
		}
	}
	out := make([][]Group, len(views))
	for i, dims := range views {
		out[i] = sortedSums(sums[i], dims)
	}
	return out, nil
}

// sortedSums returns the groups of sums in Reconcile's order: by their
// values in dims, in the order of the dimensions' names. A key alias is
// kept where dims group by key, as Rollup keeps it.
func sortedSums(sums map[GroupKey]*groupSum, dims []Dim) []Group {
	byKey := slices.Contains(dims, DimKey)
	gs := make([]Group, 0, len(sums))
	for _, s := range sums {
		if !byKey {
			s.g.KeyAlias = ""
		}
		gs = append(gs, s.done())
	}
	order := sortedDims(dims)
	slices.SortFunc(gs, func(a, b Group) int { return compareKeys(&a.Key, &b.Key, order) })
	return gs
}

// rolledKey returns k with only its values in dims.
func rolledKey(k *GroupKey, dims []Dim) GroupKey {
	var r GroupKey
	for _, d := range dims {
		switch d {
		case DimModel:
			r.Model = k.Model
		case DimGroup:
			r.Group = k.Group
		case DimKey:
			r.Key = k.Key
		case DimTeam:
			r.Team = k.Team
		case DimUser:
			r.User = k.User
		case DimDay, DimHour:
			r.Start = k.Start
		case DimPeriod:
			r.Period, r.Outcome = k.Period, k.Outcome
		case DimVersion:
			r.Version = k.Version
		case DimHost:
			r.Host = k.Host
		case DimTag:
			r.Tag = k.Tag
		case DimMeta:
			r.Meta = k.Meta
		}
	}
	return r
}
