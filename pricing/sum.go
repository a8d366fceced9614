package pricing

import (
	"math"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/ledger"
)

// ExactSum adds amounts exactly, without allocating in the common case:
// coefficients are added as int64 integers at the smallest exponent seen,
// and whatever would overflow moves into a decimal. The zero value is
// an empty sum.
type ExactSum struct {
	small int64 // at exponent exp
	exp   int32
	// big is the rest, nil until used: a word where a decimal and a flag
	// took three (a bucket holds an ExactSum). Made anew at each change,
	// never changed in place, so that copies of a sum share it safely.
	big *decimal.Decimal
}

var pow10 = func() (p [19]int64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// Add adds a.
func (s *ExactSum) Add(a ledger.Amount) {
	m, e, ok := a.Int64()
	if !ok {
		s.addBig(a.Decimal())
		return
	}
	if m == 0 {
		return
	}
	if s.small == 0 {
		s.exp = e
	}
	if e < s.exp { // rescale the running sum down to e
		if !s.rescale(e) {
			s.addBig(decimal.New(m, e))
			return
		}
	}
	if e > s.exp {
		shift := e - s.exp
		if shift > 18 || m > math.MaxInt64/pow10[shift] || m < math.MinInt64/pow10[shift] {
			s.addBig(decimal.New(m, e))
			return
		}
		m *= pow10[shift]
	}
	if sum := s.small + m; (m > 0 && sum < s.small) || (m < 0 && sum > s.small) {
		s.addBig(decimal.New(s.small, s.exp))
		s.small = m
	} else {
		s.small = sum
	}
}

// rescale moves the running sum to exponent e < s.exp, if it fits.
func (s *ExactSum) rescale(e int32) bool {
	shift := s.exp - e
	if s.small == 0 {
		s.exp = e
		return true
	}
	if shift > 18 || s.small > math.MaxInt64/pow10[shift] || s.small < math.MinInt64/pow10[shift] {
		return false
	}
	s.small *= pow10[shift]
	s.exp = e
	return true
}

func (s *ExactSum) addBig(d decimal.Decimal) {
	v := decimal.Zero.Add(d)
	if s.big != nil {
		v = s.big.Add(d)
	}
	s.big = &v
}

// used reports whether the sum has a decimal part (big).
func (s *ExactSum) used() bool { return s.big != nil }

// amount returns the sum as an Amount: its integer when it is one,
// without making a decimal.
func (s *ExactSum) amount() ledger.Amount {
	if s.big == nil {
		return ledger.NewAmount(s.small, s.exp)
	}
	return ledger.AmountOf(s.Value())
}

// Value returns the sum.
func (s *ExactSum) Value() decimal.Decimal {
	v := decimal.New(s.small, s.exp)
	if s.big != nil {
		v = v.Add(*s.big)
	}
	return v
}
