package tariffs

import (
	"fmt"
	"strings"
)

// Usage is a billable usage type: a kind of token, the call itself, or one
// use of a server-side tool.
type Usage uint8

// Usage types, in the order reports list them. Input is the uncached prompt;
// CacheWrite holds the prompt tokens written to a cache with a 5-minute
// lifetime or none stated, CacheWrite1h those written with a 1-hour
// lifetime (the two are disjoint); Output includes reasoning; Request is
// charged per call, not per token; WebSearch, WebFetch and FileSearch are
// charged per use of the tool.
const (
	Input Usage = iota
	CacheRead
	CacheWrite
	CacheWrite1h
	Output
	Reasoning
	Request
	WebSearch
	WebFetch
	FileSearch
	NumUsage = int(FileSearch) + 1
)

// NumTokenUsage is the number of usage types counted in tokens: Input up to
// Reasoning. Usage types from Request on are counted in calls or uses.
const NumTokenUsage = int(Reasoning) + 1

var usageNames = [NumUsage]string{"input", "cache_read", "cache_write", "cache_write_1h", "output", "reasoning", "request",
	"web_search", "web_fetch", "file_search"}

// String returns the usage type's name as written in tariff files.
func (u Usage) String() string {
	if int(u) < NumUsage {
		return usageNames[u]
	}
	return fmt.Sprintf("usage(%d)", u)
}

// IsToken reports whether u is counted in tokens and priced per 1M.
func (u Usage) IsToken() bool { return int(u) < NumTokenUsage }

// IsTool reports whether u is the use of a server-side tool.
func (u Usage) IsTool() bool { return u >= WebSearch && int(u) < NumUsage }

// Tools lists the tool usage types, in order.
var Tools = []Usage{WebSearch, WebFetch, FileSearch}

// rateNames are the usage types a rate set lists by name: the tokens and
// request; tools are priced under a version's tools.
var rateNames = usageNames[:Request+1]

// ParseUsage returns the usage type named s.
func ParseUsage(s string) (Usage, error) {
	for i, n := range usageNames {
		if n == s {
			return Usage(i), nil
		}
	}
	return 0, fmt.Errorf("unknown usage type %q (want one of %s)", s, strings.Join(usageNames[:], ", "))
}

// parseRateUsage returns the token or request usage type named s, as a rate
// set lists them.
func parseRateUsage(s string) (Usage, error) {
	for i, n := range rateNames {
		if n == s {
			return Usage(i), nil
		}
	}
	if u, err := ParseUsage(s); err == nil && u.IsTool() {
		return 0, fmt.Errorf("%s is a tool: price it under the version's tools, not in a rate set", s)
	}
	return 0, fmt.Errorf("unknown usage type %q (want one of %s)", s, strings.Join(rateNames, ", "))
}

// parseTool returns the tool usage type named s.
func parseTool(s string) (Usage, error) {
	if u, err := ParseUsage(s); err == nil && u.IsTool() {
		return u, nil
	}
	return 0, fmt.Errorf("unknown tool %q (want web_search, web_fetch or file_search)", s)
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
