package reports

import (
	"io"
	"time"

	"github.com/tokenfare/tokenfare/gateway"
	"github.com/tokenfare/tokenfare/internal/secret"
	"github.com/tokenfare/tokenfare/internal/textout"
)

// Check is the result of checking one gateway config.
type Check struct {
	File     string
	Gateway  string // "litellm" or "cliproxy"
	At       time.Time
	Findings []gateway.Finding
}

// Counts returns the number of findings that fail the check and of warnings.
// Accepted findings are neither.
func (c *Check) Counts() (problems, warnings int) {
	for _, f := range c.Findings {
		switch f.Severity {
		case gateway.Warning:
			warnings++
		case gateway.Problem:
			problems++
		}
	}
	return problems, warnings
}

// accepted returns the number of findings a comment of the config accepts.
func (c *Check) accepted() int {
	n := 0
	for _, f := range c.Findings {
		if f.Severity == gateway.Accepted {
			n++
		}
	}
	return n
}

type checkDoc struct {
	Config   string       `json:"config"`
	Gateway  string       `json:"gateway"`
	At       string       `json:"at"`
	Problems int          `json:"problems"`
	Warnings int          `json:"warnings"`
	Accepted int          `json:"accepted"`
	Findings []findingDoc `json:"findings"`
}

type findingDoc struct {
	Rule      string `json:"rule"`
	Severity  string `json:"severity"`
	ModelName string `json:"model_name,omitempty"`
	File      string `json:"file"`
	Line      int    `json:"line"`
	Field     string `json:"field"`
	Value     string `json:"value"`
	Bound     string `json:"bound"`
	Message   string `json:"message"`
	// Reason and AcceptedAt: an accepted finding's comment, its reason and line.
	Reason     string `json:"reason,omitempty"`
	AcceptedAt int    `json:"accepted_at,omitempty"`
}

func newCheckDoc(c *Check) *checkDoc {
	doc := &checkDoc{Config: c.File, Gateway: c.Gateway, At: c.At.UTC().Format(time.RFC3339), Findings: []findingDoc{}}
	doc.Problems, doc.Warnings = c.Counts()
	doc.Accepted = c.accepted()
	for _, f := range c.Findings {
		doc.Findings = append(doc.Findings, findingDoc{Rule: f.Rule, Severity: f.Severity.String(), ModelName: f.ModelName,
			File: f.File, Line: f.Line, Field: f.Field, Value: f.Value, Bound: f.Bound, Message: f.Message,
			Reason: f.Reason, AcceptedAt: f.AcceptedAt})
	}
	return doc
}

// Findings writes the findings of a config check in format f: as a table,
// one finding per line ("file:line: severity: rule: model: field value
// (want bound): message"), or as JSON.
func Findings(w io.Writer, f Format, c *Check) error {
	switch f {
	case JSON:
		return writeJSON(w, newCheckDoc(c))
	case Table:
		ew := &textout.Writer{W: &textout.Escaping{W: &secret.Writer{W: w}}}
		for _, x := range c.Findings {
			ew.Printf("%s: %s: %s: %s: %s %s (want %s): %s", x.Where(), x.Severity, x.Rule, orDash(x.ModelName), x.Field, orDash(x.Value), orDash(x.Bound), x.Message)
			if x.Severity == gateway.Accepted {
				ew.Printf(" [accepted at line %d: %s]", x.AcceptedAt, x.Reason)
			}
			ew.Printf("\n")
		}
		p, warn := c.Counts()
		ew.Printf("%s (%s): %d finding(s), %d warning(s)", c.File, c.Gateway, p, warn)
		if n := c.accepted(); n > 0 {
			ew.Printf(", %d accepted", n)
		}
		ew.Printf("\n")
		return ew.Err
	}
	return errFormat("a check", f)
}
