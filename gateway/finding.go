package gateway

import (
	"fmt"
	"sort"
)

// Severity says whether a finding fails a check.
type Severity uint8

// Severities of findings.
const (
	// Problem fails the check (exit 1).
	Problem Severity = iota
	// Warning is reported but does not fail the check unless made strict.
	Warning
	// Accepted is a problem or warning that a comment in the config
	// accepts (see Accept): reported, with the comment's reason, but it
	// does not fail the check.
	Accepted
)

var severityNames = [...]string{"finding", "warning", "accepted"}

// String returns "finding", "warning" or "accepted".
func (s Severity) String() string { return severityNames[s] }

// Finding is one problem a check found in a gateway config.
type Finding struct {
	Rule      string // short name of the rule, e.g. "price-bounds"
	Severity  Severity
	ModelName string // the entry's public model name; "" for settings
	File      string
	Line      int
	Field     string // the key the value sits under, dotted from the entry
	Value     string // the value as written ("" when the key is missing)
	Bound     string // what the value should be, in words or figures
	Message   string
	// Reason is, for an Accepted finding, the reason the comment accepting
	// it gives, and AcceptedAt the comment's line.
	Reason     string
	AcceptedAt int
}

// Where returns "file:line".
func (f Finding) Where() string { return fmt.Sprintf("%s:%d", f.File, f.Line) }

// Error formats the finding as one line: "file:line: rule: message".
func (f Finding) Error() string {
	return fmt.Sprintf("%s: %s: %s", f.Where(), f.Rule, f.Message)
}

// Sort orders findings by file, line, rule and field.
func Sort(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Rule != b.Rule {
			return a.Rule < b.Rule
		}
		return a.Field < b.Field
	})
}
