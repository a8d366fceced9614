package pricing

import (
	"iter"

	"github.com/tokenfare/tokenfare/ledger"
)

// GroupMoney is a group's official cost, recorded spend, gap and ratio as
// ledger.Amounts: a coefficient and an exponent where they fit an int64,
// as the group's exact sums hold them. A renderer that writes a million
// groups writes their money from these integers, where Group's fields
// make four decimals, and their big integers, a group. Each Amount's
// Decimal equals the Group field of the same name.
type GroupMoney struct {
	// Group is the group whose money it is. Of a streamed
	// reconciliation, its Official, Recorded, Gap and Ratio are left
	// zero: the fields below hold them, made without decimals where
	// they fit.
	Group                   *Group
	Official, Recorded, Gap ledger.Amount
	// Ratio is recorded / official rounded to RatioPlaces, as Group.Ratio;
	// there is none (RatioValid false) when the official cost is zero.
	Ratio      ledger.Amount
	RatioValid bool
}

// GroupsWithMoney is Groups with each group's money as GroupMoney, which
// holds the group: yielded, and valid, as Groups yields the groups.
func (r *Reconciliation) GroupsWithMoney() iter.Seq2[*GroupMoney, error] {
	if r.stream == nil || r.closed {
		return r.listedMoney()
	}
	return func(yield func(*GroupMoney, error) bool) {
		var m GroupMoney
		for s, err := range r.stream.sums() {
			if err != nil {
				yield(nil, err)
				return
			}
			s.money(&m)
			if s.g.Currencies == nil {
				s.g.Currencies = []string{}
			}
			m.Group = &s.g
			if !yield(&m, nil) {
				return
			}
		}
	}
}

// listedMoney yields the groups of Groups, each with its money made from
// its decimals (moneyOf).
func (r *Reconciliation) listedMoney() iter.Seq2[*GroupMoney, error] {
	return func(yield func(*GroupMoney, error) bool) {
		var m GroupMoney
		for g, err := range r.Groups() {
			if err != nil {
				yield(nil, err)
				return
			}
			m = moneyOf(g)
			if !yield(&m, nil) {
				return
			}
		}
	}
}

// moneyOf returns the money of a group whose decimals are made.
func moneyOf(g *Group) GroupMoney {
	m := GroupMoney{Group: g, Official: ledger.AmountOf(g.Official), Recorded: ledger.AmountOf(g.Recorded), Gap: ledger.AmountOf(g.Gap)}
	if g.Ratio.Valid {
		m.Ratio, m.RatioValid = ledger.AmountOf(g.Ratio.Decimal), true
	}
	return m
}

// money sets m to the group's money, as done makes it in decimals: in
// integers when the sums are single integers and the gap and ratio fit.
func (s *groupSum) money(m *GroupMoney) {
	m.Official, m.Recorded = s.official.amount(), s.recorded.amount()
	if d, exp, ok := intGap(&s.official, &s.recorded); ok {
		m.Gap = ledger.NewAmount(d, exp)
	} else {
		m.Gap = ledger.AmountOf(s.official.Value().Sub(s.recorded.Value()))
	}
	m.Ratio, m.RatioValid = ledger.Amount{}, false
	if !s.recorded.used() && !s.official.used() && s.official.small != 0 {
		if q, ok := intRatio(s.recorded.small, s.recorded.exp, s.official.small, s.official.exp); ok {
			m.Ratio, m.RatioValid = ledger.NewAmount(q, -RatioPlaces), true
			return
		}
	}
	if r := ratio(s.recorded.Value(), s.official.Value()); r.Valid {
		m.Ratio, m.RatioValid = ledger.AmountOf(r.Decimal), true
	}
}
