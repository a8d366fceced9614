package budgets

import (
	"errors"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/tokenfare/tokenfare/internal/numtext"
	"github.com/tokenfare/tokenfare/pricing"
)

// Error is one problem of a budgets file, where it is.
type Error struct {
	File string
	Line int // 0 when the file as a whole is at fault
	Msg  string
}

func (e *Error) Error() string {
	if e.Line == 0 {
		return e.File + ": " + e.Msg
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// Errors are every problem of a budgets file, in line order.
type Errors []*Error

func (es Errors) Error() string {
	msgs := make([]string, len(es))
	for i, e := range es {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "\n")
}

// ErrInvalid is what an Errors wraps, for errors.Is.
var ErrInvalid = errors.New("invalid budgets file")

// Unwrap lets errors.Is(err, ErrInvalid) hold.
func (es Errors) Unwrap() error { return ErrInvalid }

// Parse reads a budgets file (docs/workbook.md "Budgets"):
//
//	currency: USD              # optional: the currency the amounts are in
//	budgets:
//	  - team: search           # or key: ALIAS-OR-HASH, or tag: TAG
//	    monthly: "1500.00"
//
// Amounts are read from the file's text, never through a float. Every
// problem is reported at once, each with its line: an unknown field, a
// budget naming no or two targets, an amount that is not a positive
// decimal, a target given twice.
func Parse(name string, data []byte) (*pricing.BudgetPlan, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, Errors{{File: name, Msg: strings.TrimPrefix(err.Error(), "yaml: ")}}
	}
	p := budgetParser{file: name, plan: &pricing.BudgetPlan{}, seen: map[string]int{}}
	if len(doc.Content) == 0 {
		p.fail(0, "the file is empty: it needs a budgets list")
	} else {
		p.document(doc.Content[0])
	}
	if len(p.errs) > 0 {
		return nil, p.errs
	}
	return p.plan, nil
}

type budgetParser struct {
	file string
	plan *pricing.BudgetPlan
	seen map[string]int // kind and name → line of the first budget
	errs Errors
}

func (p *budgetParser) fail(line int, format string, args ...any) {
	p.errs = append(p.errs, &Error{File: p.file, Line: line, Msg: fmt.Sprintf(format, args...)})
}

func (p *budgetParser) document(n *yaml.Node) {
	if n.Kind != yaml.MappingNode {
		p.fail(n.Line, "the file is not a mapping: it needs a budgets list")
		return
	}
	var list *yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch k.Value {
		case "currency":
			if v.Kind != yaml.ScalarNode || !isCurrencyCode(v.Value) {
				p.fail(v.Line, "currency %q is not a three-letter code such as USD", v.Value)
				continue
			}
			p.plan.Currency = v.Value
		case "budgets":
			list = v
		default:
			p.fail(k.Line, "unknown field %q (want currency or budgets)", k.Value)
		}
	}
	if list == nil {
		p.fail(n.Line, "no budgets list")
		return
	}
	if list.Kind != yaml.SequenceNode {
		p.fail(list.Line, "budgets is not a list")
		return
	}
	for _, b := range list.Content {
		p.budget(b)
	}
}

func (p *budgetParser) budget(n *yaml.Node) {
	if n.Kind != yaml.MappingNode {
		p.fail(n.Line, "a budget is a mapping such as {team: search, monthly: \"1500\"}")
		return
	}
	b := pricing.Budget{Source: fmt.Sprintf("%s:%d", p.file, n.Line)}
	targets, amount := 0, false
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch k.Value {
		case "team", "key", "tag":
			targets++
			b.Kind = map[string]pricing.BudgetKind{"team": pricing.BudgetTeam, "key": pricing.BudgetKey, "tag": pricing.BudgetTag}[k.Value]
			if v.Kind != yaml.ScalarNode || strings.TrimSpace(v.Value) == "" {
				p.fail(v.Line, "%s is empty", k.Value)
				continue
			}
			b.Name = v.Value
		case "monthly":
			amount = true // a bad amount is reported as such, not as missing
			d, err := numtext.Decimal(strings.TrimSpace(v.Value))
			switch {
			case v.Kind == yaml.ScalarNode && (errors.Is(err, numtext.ErrTooLong) || errors.Is(err, numtext.ErrOutOfRange)):
				p.fail(v.Line, "monthly %.40q is out of range: %v", v.Value, err)
				continue
			case v.Kind != yaml.ScalarNode || err != nil:
				p.fail(v.Line, "monthly %q is not a decimal amount", v.Value)
				continue
			case !d.IsPositive():
				p.fail(v.Line, "monthly %s is not above zero", v.Value)
				continue
			}
			b.Monthly = d
		default:
			p.fail(k.Line, "unknown field %q (want team, key or tag, and monthly)", k.Value)
		}
	}
	switch {
	case targets == 0:
		p.fail(n.Line, "the budget names no team, key or tag")
		return
	case targets > 1:
		p.fail(n.Line, "the budget names more than one team, key or tag: give one per budget")
		return
	case !amount:
		p.fail(n.Line, "the budget has no monthly amount")
		return
	case b.Name == "" || !b.Monthly.IsPositive():
		return
	}
	id := b.Kind.String() + "\x00" + b.Name
	if first, ok := p.seen[id]; ok {
		p.fail(n.Line, "%s %q has a budget already, at line %d", b.Kind, b.Name, first)
		return
	}
	p.seen[id] = n.Line
	p.plan.Budgets = append(p.plan.Budgets, b)
}

// isCurrencyCode reports whether s looks like an ISO 4217 code.
func isCurrencyCode(s string) bool {
	if len(s) != 3 {
		return false
	}
	for _, r := range s {
		if r < 'A' || r > 'Z' {
			return false
		}
	}
	return true
}
