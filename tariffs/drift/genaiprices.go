package drift

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/shopspring/decimal"
	"github.com/tokenfare/tokenfare/internal/numtext"
	"github.com/tokenfare/tokenfare/internal/yamlin"
	"github.com/tokenfare/tokenfare/tariffs"
	"gopkg.in/yaml.v3"
)

// genaiFields maps genai-prices price keys (USD per 1M tokens) to usage
// types. A 5-minute cache-write price stands for cache_write when the file
// gives no plain one.
var genaiFields = map[string]tariffs.Usage{
	"input_mtok":          tariffs.Input,
	"cache_read_mtok":     tariffs.CacheRead,
	"cache_write_mtok":    tariffs.CacheWrite,
	"cache_write_5m_mtok": tariffs.CacheWrite,
	"cache_write_1h_mtok": tariffs.CacheWrite1h,
	"output_mtok":         tariffs.Output,
}

// genaiKcounts maps genai-prices fees per 1,000 uses to the usage types
// they price: the request fee and the web search tool.
var genaiKcounts = map[string]tariffs.Usage{
	"requests_kcount":     tariffs.Request,
	"web_searches_kcount": tariffs.WebSearch,
}

// readGenAIPrices reads one genai-prices provider file
// (prices/providers/<id>.yml): a provider id and its models, each with a
// match clause and prices, possibly conditional.
func readGenAIPrices(ctx context.Context, name string, data []byte) (*Database, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := yamlin.Aliases(&doc); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: neither a LiteLLM JSON table nor a genai-prices provider file", name)
	}
	root := doc.Content[0]
	idNode, models := get(root, "id"), get(root, "models")
	if idNode == nil || models == nil || models.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("%s:%d: a genai-prices provider file needs id and a list of models", name, root.Line)
	}
	db := &Database{Format: GenAIPrices, File: name}
	for _, m := range models.Content {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		db.Read++
		e, err := genaiEntry(name, idNode.Value, m)
		if err != nil {
			id := ""
			if n := get(m, "id"); n != nil {
				id = n.Value
			}
			skip := Skip{Name: id, Line: m.Line, Reason: err.Error()}
			if errors.Is(err, errRemoved) {
				db.Removed = append(db.Removed, skip)
			} else {
				db.Skipped = append(db.Skipped, skip)
			}
			continue
		}
		db.Entries = append(db.Entries, e)
	}
	return db, nil
}

// errRemoved is why a model marked removed is left out.
var errRemoved = errors.New("marked removed in the file")

// genaiHosts maps genai-prices provider ids that are not spelled as the
// host they name: AWS is Bedrock, Google's file prices the Gemini API.
var genaiHosts = map[string]string{"aws": "bedrock", "google": "gemini", "together": "together_ai"}

// genaiHost returns the host a genai-prices provider id names.
func genaiHost(id string) string {
	if h, ok := genaiHosts[id]; ok {
		return h
	}
	return tariffs.NormalizeHost(id)
}

// genaiEntry converts one model; errRemoved when the model is marked
// removed.
func genaiEntry(file, provider string, m *yaml.Node) (*Entry, error) {
	id := get(m, "id")
	if id == nil || id.Value == "" {
		return nil, errors.New("model without an id")
	}
	if r := get(m, "removed"); r != nil && r.Value == "true" {
		return nil, errRemoved
	}
	e := &Entry{Format: GenAIPrices, File: file, Line: id.Line, Name: id.Value, Provider: provider, Host: genaiHost(provider)}
	match, err := clause(get(m, "match"))
	if err != nil {
		return nil, fmt.Errorf("model %s: match: %w", id.Value, err)
	}
	e.match = match
	prices := get(m, "prices")
	if prices == nil {
		return nil, fmt.Errorf("model %s has no prices", id.Value)
	}
	items := []*yaml.Node{prices}
	if prices.Kind == yaml.SequenceNode {
		items = prices.Content
	}
	for _, it := range items {
		c, err := genaiConditional(it, prices.Kind == yaml.SequenceNode)
		if err != nil {
			return nil, fmt.Errorf("model %s: line %d: %w", id.Value, it.Line, err)
		}
		e.prices = append(e.prices, c)
	}
	return e, nil
}

// genaiConditional reads a price set, or in a list, {constraint, prices}.
func genaiConditional(n *yaml.Node, inList bool) (conditional, error) {
	var c conditional
	if inList {
		if con := get(n, "constraint"); con != nil {
			if err := c.constraint(con); err != nil {
				return c, err
			}
		}
		if n = get(n, "prices"); n == nil {
			return c, errors.New("conditional price without prices")
		}
	}
	if n.Kind != yaml.MappingNode {
		return c, errors.New("prices is not a mapping")
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if err := c.rates.setGenAI(n.Content[i].Value, n.Content[i+1]); err != nil {
			return c, err
		}
	}
	return c, nil
}

// constraint reads a start_date or a start_time/end_time constraint.
func (c *conditional) constraint(n *yaml.Node) error {
	if d := get(n, "start_date"); d != nil {
		t, err := time.Parse(time.DateOnly, d.Value)
		if err != nil {
			return fmt.Errorf("start_date %q is not YYYY-MM-DD", d.Value)
		}
		c.since = t
	}
	from, to := get(n, "start_time"), get(n, "end_time")
	if (from == nil) != (to == nil) {
		return errors.New("a time constraint needs start_time and end_time")
	}
	if from != nil {
		a, okA := clock(from.Value)
		b, okB := clock(to.Value)
		if !okA || !okB {
			return fmt.Errorf("time constraint %s-%s is not HH:MM:SSZ", from.Value, to.Value)
		}
		c.daily = &dayWindow{a, b % (24 * 60)}
	}
	return nil
}

// setGenAI records key k: a number, or {base, tiers: [{start, price}]}.
func (r *rates) setGenAI(k string, v *yaml.Node) error {
	u, ok := genaiFields[k]
	if !ok {
		// Fees per 1,000 calls or searches, stored per one.
		if per, ok := genaiKcounts[k]; ok {
			p, err := mtok(v)
			if err != nil {
				return fmt.Errorf("%s: %w", k, err)
			}
			r.base.Set(per, p.Shift(-3))
		}
		return nil
	}
	if k == "cache_write_5m_mtok" && r.base.Listed(u) {
		return nil
	}
	if v.Kind != yaml.MappingNode {
		p, err := mtok(v)
		if err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
		r.base.Set(u, p)
		return nil
	}
	base, tiers := get(v, "base"), get(v, "tiers")
	if base == nil || tiers == nil {
		return fmt.Errorf("%s: tiered prices need base and tiers", k)
	}
	p, err := mtok(base)
	if err != nil {
		return fmt.Errorf("%s: base: %w", k, err)
	}
	r.base.Set(u, p)
	for _, t := range tiers.Content {
		start, price := get(t, "start"), get(t, "price")
		if start == nil || price == nil {
			return fmt.Errorf("%s: a tier needs start and price", k)
		}
		above, err := numtext.Decimal(start.Value)
		if err != nil || !above.IsInteger() || !above.IsPositive() {
			return fmt.Errorf("%s: tier start %q is not a token count", k, start.Value)
		}
		p, err := mtok(price)
		if err != nil {
			return fmt.Errorf("%s: tier price: %w", k, err)
		}
		r.tier(above.IntPart()).Set(u, p)
	}
	return nil
}

// mtok reads a price from the YAML text itself, never through a float.
func mtok(n *yaml.Node) (decimal.Decimal, error) {
	d, err := tariffs.ScalarDecimal(n)
	if err != nil {
		return d, err
	}
	if d.IsNegative() {
		return d, fmt.Errorf("%s is negative", d)
	}
	return d, nil
}

// clause compiles a genai-prices match clause into a test on a model name.
// Names are compared without regard to case.
func clause(n *yaml.Node) (func(string) bool, error) {
	if n == nil || n.Kind != yaml.MappingNode || len(n.Content) != 2 {
		return nil, errors.New("a clause is one of equals, starts_with, ends_with, contains, regex, or, and")
	}
	op, arg := n.Content[0].Value, n.Content[1]
	switch op {
	case "or", "and":
		var subs []func(string) bool
		for _, c := range arg.Content {
			f, err := clause(c)
			if err != nil {
				return nil, err
			}
			subs = append(subs, f)
		}
		return func(s string) bool {
			for _, f := range subs {
				if f(s) == (op == "or") {
					return op == "or"
				}
			}
			return op == "and"
		}, nil
	case "regex":
		re, err := regexp.Compile(arg.Value)
		if err != nil {
			return nil, err
		}
		return func(s string) bool { return re.MatchString(s) }, nil
	}
	v := strings.ToLower(arg.Value)
	tests := map[string]func(string) bool{
		"equals":      func(s string) bool { return s == v },
		"starts_with": func(s string) bool { return strings.HasPrefix(s, v) },
		"ends_with":   func(s string) bool { return strings.HasSuffix(s, v) },
		"contains":    func(s string) bool { return strings.Contains(s, v) },
	}
	f, ok := tests[op]
	if !ok {
		return nil, fmt.Errorf("unknown clause %q", op)
	}
	return func(s string) bool { return f(strings.ToLower(s)) }, nil
}

// get returns the value of key k in mapping n, or nil.
func get(n *yaml.Node, k string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == k {
			return n.Content[i+1]
		}
	}
	return nil
}
