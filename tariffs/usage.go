package tariffs

import "fmt"

// Usage is a billable usage type.
type Usage uint8

// Usage types, in the order reports list them. Input is the uncached prompt;
// Output includes reasoning; Request is charged per call, not per token.
const (
	Input Usage = iota
	CacheRead
	CacheWrite
	Output
	Reasoning
	Request
	NumUsage = int(Request) + 1
)

var usageNames = [NumUsage]string{"input", "cache_read", "cache_write", "output", "reasoning", "request"}

// String returns the usage type's name as written in tariff files.
func (u Usage) String() string {
	if int(u) < NumUsage {
		return usageNames[u]
	}
	return fmt.Sprintf("usage(%d)", u)
}

// ParseUsage returns the usage type named s.
func ParseUsage(s string) (Usage, error) {
	for i, n := range usageNames {
		if n == s {
			return Usage(i), nil
		}
	}
	return 0, fmt.Errorf("unknown usage type %q (want one of input, cache_read, cache_write, output, reasoning, request)", s)
}

// BillingTime says which instant of a call decides its price.
type BillingTime uint8

// Billing instants.
const (
	BillEnd BillingTime = iota
	BillStart
	BillFirstToken
)

var billingNames = [...]string{"end", "start", "first_token"}

// String returns the billing instant as written in tariff files.
func (b BillingTime) String() string { return billingNames[b] }

// ParseBillingTime returns the billing instant named s.
func ParseBillingTime(s string) (BillingTime, error) {
	for i, n := range billingNames {
		if n == s {
			return BillingTime(i), nil
		}
	}
	return 0, fmt.Errorf("unknown billing time %q (want start, first_token or end)", s)
}
