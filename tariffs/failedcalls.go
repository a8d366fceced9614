package tariffs

import (
	"fmt"
	"strings"
)

// FailedBilling says whether a provider bills the calls that end in an
// error (a 500 after part of the answer was generated, a stream cut off).
type FailedBilling uint8

// Billing policies for failed calls.
const (
	// FailedNotBilled: a failed call costs nothing, whatever tokens its
	// log reports. The default.
	FailedNotBilled FailedBilling = iota
	// FailedBilledReportedTokens: a failed call is billed for the tokens
	// its log reports, at the rates in force, like a successful one.
	FailedBilledReportedTokens
)

var failedBillingNames = [...]string{"not_billed", "billed_reported_tokens"}

// String returns the policy as tariff files spell it.
func (b FailedBilling) String() string { return failedBillingNames[b] }

// ParseFailedBilling returns the policy named s.
func ParseFailedBilling(s string) (FailedBilling, error) {
	for i, n := range failedBillingNames {
		if n == s {
			return FailedBilling(i), nil
		}
	}
	return 0, fmt.Errorf("unknown failed-call billing %q (want not_billed or billed_reported_tokens)", s)
}

// FailedCalls is a provider's stated billing policy for failed calls and
// the page that states it ("" for the default, which states nothing).
type FailedCalls struct {
	Billing FailedBilling
	Source  string
}

// Billed reports whether failed calls are billed for their tokens.
func (f FailedCalls) Billed() bool { return f.Billing == FailedBilledReportedTokens }

// rawFailedCalls is the failed_calls mapping of a tariff file.
type rawFailedCalls struct {
	Billing scalar `yaml:"billing"`
	Source  scalar `yaml:"source"`
}

// failedCalls converts a file's failed_calls: a policy is required, and
// so is a source URL when failed calls are billed; a source the file's
// sources do not list is a warning, as for rates.
func (c *converter) failedCalls(p *Provider, raw *rawFailedCalls) {
	if raw == nil {
		return
	}
	line := max(raw.Source.Line, 1)
	if c.required(raw.Billing, line, "failed_calls billing") && !raw.Billing.bad {
		b, err := ParseFailedBilling(raw.Billing.Value)
		if err != nil {
			c.errorf(raw.Billing.Line, "failed_calls: %v", err)
		}
		p.FailedCalls.Billing = b
	}
	switch {
	case raw.Source.Set && !raw.Source.bad && raw.Source.Value != "":
		c.failedSource(p, raw.Source)
	case p.FailedCalls.Billed():
		c.errorf(raw.Billing.Line, "failed_calls: billing %s needs a source: the provider's page that says failed calls are billed", raw.Billing.Value)
	}
}

// failedSource keeps the failed_calls source after checking it is a URL.
func (c *converter) failedSource(p *Provider, s scalar) {
	if !isURL(s.Value) {
		c.errorf(s.Line, "failed_calls: source %q is not a URL", s.Value)
		return
	}
	p.FailedCalls.Source = s.Value
	c.sourceKind(p, s, "failed_calls")
}

// isURL reports whether s reads as an absolute URL, as source URLs must.
func isURL(s string) bool { return strings.Contains(s, "://") }
