package cli

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// The FOCUS requirements model (testdata/focus/*-rules.json, trimmed
// copies whose sources the files name) states each rule as a check
// function over the dataset's columns, with a condition that selects the
// rows it applies to. focusModel reads it and checks an export against
// every Static rule the copies keep; docs/focus.md lists the rules left
// out and why.

type focusModel struct {
	Source     string
	ModelRules map[string]focusRule
	// Removes lists the rules of the files before that a later version's
	// file drops (1.4: the columns it removes).
	Removes []string
}

type focusRule struct {
	Function           string
	Reference          string
	Type               string
	ValidationCriteria struct {
		MustSatisfy string
		Keyword     string
		Requirement focusCheck
		Condition   focusCheck
	}
}

// focusCheck is a check function and its arguments; Value is JSON null, a
// string or a number.
type focusCheck struct {
	CheckFunction    string
	ColumnName       string
	ColumnAName      string
	ColumnBName      string
	ResultColumnName string
	Value            json.RawMessage
	ExpectedCount    int
	ModelRuleId      string //nolint:revive // the model's spelling
	Items            []focusCheck
}

// focusDataset is a CSV export: its header and its rows by column name.
type focusDataset struct {
	header []string
	rows   []map[string]string
}

func loadFOCUSModel(t *testing.T, names ...string) focusModel {
	t.Helper()
	m := focusModel{ModelRules: map[string]focusRule{}}
	for _, name := range names {
		data, err := os.ReadFile(filepath.Join("testdata", "focus", name))
		if err != nil {
			t.Fatal(err)
		}
		var f focusModel
		if err := json.Unmarshal(data, &f); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if f.Source == "" {
			t.Fatalf("%s names no source", name)
		}
		for _, id := range f.Removes {
			if _, ok := m.ModelRules[id]; !ok {
				t.Fatalf("%s removes %s, which no file before it has", name, id)
			}
			delete(m.ModelRules, id)
		}
		for id, r := range f.ModelRules { // a rule a file removes may come back changed
			m.ModelRules[id] = r
		}
	}
	return m
}

func readFOCUSDataset(t *testing.T, path string) focusDataset {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	records, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	d := focusDataset{header: records[0]}
	for _, rec := range records[1:] {
		r := map[string]string{}
		for j, h := range d.header {
			r[h] = rec[j]
		}
		d.rows = append(d.rows, r)
	}
	return d
}

// usesRules reports whether c refers to other rules: a composite.
func (c *focusCheck) usesRules() bool {
	if c.CheckFunction == "CheckModelRule" {
		return true
	}
	return slices.ContainsFunc(c.Items, func(i focusCheck) bool { return i.usesRules() })
}

// checkRules checks d against every rule of m that is not a composite and
// returns the ids of those it breaks, each with the first line (2 = the
// first row) that breaks it, and the number of rules checked.
func (m focusModel) checkRules(t *testing.T, d focusDataset) (broken map[string]string, checked int) {
	t.Helper()
	parents := map[string][]string{}
	for id, r := range m.ModelRules {
		var refs func(c *focusCheck)
		refs = func(c *focusCheck) {
			if c.CheckFunction == "CheckModelRule" {
				parents[c.ModelRuleId] = append(parents[c.ModelRuleId], id)
			}
			for i := range c.Items {
				refs(&c.Items[i])
			}
		}
		refs(&r.ValidationCriteria.Requirement)
	}
	broken = map[string]string{}
	for id, r := range m.ModelRules {
		req := r.ValidationCriteria.Requirement
		if r.Type != "Static" || req.usesRules() {
			continue
		}
		checked++
		if why := m.check(t, d, &req, m.conditions(id, parents, nil)); why != "" {
			broken[id] = why
		}
	}
	return broken, checked
}

// conditions returns the conditions rule id applies under: its own and
// those of the composite rules above it.
func (m focusModel) conditions(id string, parents map[string][]string, seen []string) []focusCheck {
	var cs []focusCheck
	if c := m.ModelRules[id].ValidationCriteria.Condition; c.CheckFunction != "" {
		cs = append(cs, c)
	}
	for _, p := range parents[id] {
		if _, ok := m.ModelRules[p]; ok && !slices.Contains(seen, p) {
			cs = append(cs, m.conditions(p, parents, append(seen, id))...)
		}
	}
	return cs
}

// check applies a rule's requirement to d and says how d breaks it, ""
// when it does not.
func (m focusModel) check(t *testing.T, d focusDataset, req *focusCheck, conds []focusCheck) string {
	switch req.CheckFunction {
	case "ColumnPresent":
		if !slices.Contains(d.header, req.ColumnName) {
			return "column " + req.ColumnName + " missing"
		}
		return ""
	case "ColumnAbsent":
		if slices.Contains(d.header, req.ColumnName) {
			return "column " + req.ColumnName + " present"
		}
		return ""
	case "CheckDistinctCount":
		distinct := map[string]map[string]bool{}
		for _, r := range d.rows {
			if a := r[req.ColumnAName]; a != "" && holds(t, conds, r) {
				if distinct[a] == nil {
					distinct[a] = map[string]bool{}
				}
				distinct[a][r[req.ColumnBName]] = true
			}
		}
		for a, bs := range distinct {
			if len(bs) != req.ExpectedCount {
				return fmt.Sprintf("%s %q has %d distinct %s, want %d", req.ColumnAName, a, len(bs), req.ColumnBName, req.ExpectedCount)
			}
		}
		return ""
	}
	for i, r := range d.rows {
		if holds(t, conds, r) && !rowCheck(t, req, r) {
			return fmt.Sprintf("line %d", i+2)
		}
	}
	return ""
}

// holds reports whether every condition holds on row r.
func holds(t *testing.T, conds []focusCheck, r map[string]string) bool {
	for i := range conds {
		if !rowCheck(t, &conds[i], r) {
			return false
		}
	}
	return true
}

var (
	focusNumeric  = regexp.MustCompile(`^-?(\d+(\.\d*)?|\.\d+)([eE]-?\d+)?$`)
	focusUnit     = regexp.MustCompile(`^(\d+ )?[A-Z][A-Za-z]*( [A-Z][A-Za-z]*)*(/[A-Z][A-Za-z]*)?$`)
	focusCurrency = regexp.MustCompile(`^[A-Z]{3}$`)
)

// rowCheck applies check c to row r; an empty cell is null. It fails the
// test on a check function it does not know, so a rule is never skipped.
func rowCheck(t *testing.T, c *focusCheck, r map[string]string) bool {
	v := r[c.ColumnName]
	switch c.CheckFunction {
	case "AND":
		for i := range c.Items {
			if !rowCheck(t, &c.Items[i], r) {
				return false
			}
		}
		return true
	case "OR":
		for i := range c.Items {
			if rowCheck(t, &c.Items[i], r) {
				return true
			}
		}
		return false
	case "CheckValue":
		return hasValue(v, c.Value)
	case "CheckNotValue":
		return !hasValue(v, c.Value)
	case "TypeString":
		return true // every CSV cell is text
	case "FormatString":
		return v == "" || strings.TrimSpace(v) != "" // StringHandling: no blank strings
	case "TypeDecimal", "CheckDecimalValue":
		_, err := decimal.NewFromString(v)
		return v == "" || err == nil
	case "FormatNumeric":
		return v == "" || focusNumeric.MatchString(v)
	case "TypeDateTime":
		_, err := time.Parse(time.RFC3339, v)
		return v == "" || err == nil
	case "FormatDateTime":
		return v == "" || focusInstant.MatchString(v) // ISO 8601 extended, UTC
	case "FormatUnit":
		return v == "" || focusUnit.MatchString(v)
	case "FormatKeyValue":
		var obj map[string]any
		return v == "" || json.Unmarshal([]byte(v), &obj) == nil
	case "FormatCurrency", "CheckNationalCurrency":
		// ISO 4217: three capitals; the codes starting with X are not national.
		return v == "" || focusCurrency.MatchString(v) && v[0] != 'X'
	case "CheckGreaterOrEqualThanValue":
		if v == "" {
			return true
		}
		got, err := decimal.NewFromString(v)
		return err == nil && got.GreaterThanOrEqual(decimal.RequireFromString(string(c.Value)))
	case "ColumnByColumnEqualsColumnValue":
		a, b, want := r[c.ColumnAName], r[c.ColumnBName], r[c.ResultColumnName]
		if a == "" || b == "" || want == "" {
			return true
		}
		return decimal.RequireFromString(a).Mul(decimal.RequireFromString(b)).Equal(decimal.RequireFromString(want))
	case "CheckSameValue":
		return r[c.ColumnAName] == r[c.ColumnBName]
	case "CheckNotSameValue":
		return r[c.ColumnAName] != r[c.ColumnBName]
	}
	t.Fatalf("check function %q is not implemented: the rule cannot be checked", c.CheckFunction)
	return false
}

// hasValue reports whether cell v holds the model's value: null is an
// empty cell, a number compares as a decimal.
func hasValue(v string, value json.RawMessage) bool {
	s := string(value)
	switch {
	case s == "" || s == "null":
		return v == ""
	case strings.HasPrefix(s, `"`):
		var want string
		return json.Unmarshal(value, &want) == nil && v == want
	}
	got, err := decimal.NewFromString(v)
	return err == nil && got.Equal(decimal.RequireFromString(s))
}

// TestFOCUSConformance checks report --focus on the sample month against
// the FOCUS requirements model's static rules, by rule id, in 1.2, 1.3 and 1.4,
// and shows that the check fails when an export breaks a rule: each
// broken case changes the export and must break exactly the rules named.
func TestFOCUSConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("long: `make test-long` runs it")
	}
	dir := t.TempDir()
	exports := map[string]focusDataset{}
	for _, v := range []string{"1.2", "1.3", "1.4"} {
		path := filepath.Join(dir, "focus-"+v+".csv")
		code, _, stderr := runCLI(t, "", "report", "--calls", sample, "--month", "2026-10", "--focus", path, "--focus-version", v)
		if code != 0 {
			t.Fatalf("report --focus-version %s: exit %d: %s", v, code, stderr)
		}
		exports[v] = readFOCUSDataset(t, path)
	}
	models := map[string]focusModel{"1.2": loadFOCUSModel(t, "model-1.2-rules.json"),
		"1.3": loadFOCUSModel(t, "model-1.2-rules.json", "model-1.3-rules.json"),
		"1.4": loadFOCUSModel(t, "model-1.2-rules.json", "model-1.3-rules.json", "model-1.4-rules.json")}
	firstUsage := func(d focusDataset) map[string]string {
		for _, r := range d.rows {
			if r["ChargeCategory"] == "Usage" {
				return r
			}
		}
		t.Fatal("no Usage row")
		return nil
	}
	tests := []struct {
		name    string
		version string
		breakIt func(d *focusDataset)
		want    []string // the rules the change breaks
	}{
		{name: "1.2 as exported", version: "1.2"},
		{name: "1.3 as exported", version: "1.3"},
		{name: "1.4 as exported", version: "1.4"},
		{name: "1.4 with the 1.3 columns it removes", version: "1.4", breakIt: func(d *focusDataset) {
			d.header = append(slices.Clone(d.header), "ProviderName", "PublisherName")
			for _, r := range d.rows {
				r["ProviderName"], r["PublisherName"] = r["ServiceProviderName"], r["ServiceProviderName"]
			}
		}, want: []string{"ProviderName-removed-1.4", "PublisherName-removed-1.4"}},
		{name: "1.3 without the ProviderName 1.4 removes", version: "1.3", breakIt: func(d *focusDataset) {
			d.header = slices.DeleteFunc(slices.Clone(d.header), func(h string) bool { return h == "ProviderName" })
		}, want: []string{"CostAndUsage-D-038-M"}},
		{name: "1.4 row invoiced by a reseller at its cost", version: "1.4", breakIt: func(d *focusDataset) {
			firstUsage(*d)["InvoiceIssuerName"] = "OpenRouter"
		}, want: []string{"BilledCost-C-005-C"}},
		{name: "1.4 host provider null", version: "1.4", breakIt: func(d *focusDataset) {
			firstUsage(*d)["HostProviderName"] = ""
		}, want: []string{"HostProviderName-text-3"}},
		{name: "list cost off by a cent", version: "1.2", breakIt: func(d *focusDataset) {
			r := firstUsage(*d)
			r["ListCost"] = decimal.RequireFromString(r["ListCost"]).Add(decimal.RequireFromString("0.01")).String()
		}, want: []string{"ListCost-C-009-C", "ListUnitPrice-C-010-C"}},
		{name: "currency in lower case", version: "1.2", breakIt: func(d *focusDataset) {
			firstUsage(*d)["BillingCurrency"] = "usd"
		}, want: []string{"BillingCurrency-C-003-M", "BillingCurrency-C-006-M"}},
		{name: "charge period in local time", version: "1.3", breakIt: func(d *focusDataset) {
			firstUsage(*d)["ChargePeriodStart"] = "2026-10-01T08:00:00+08:00"
		}, want: []string{"ChargePeriodStart-C-002-M"}},
		{name: "usage row without a price", version: "1.2", breakIt: func(d *focusDataset) {
			firstUsage(*d)["ListUnitPrice"] = ""
		}, want: []string{"ListUnitPrice-C-005-C"}},
		{name: "no ServiceProviderName column", version: "1.3", breakIt: func(d *focusDataset) {
			d.header = slices.DeleteFunc(slices.Clone(d.header), func(h string) bool { return h == "ServiceProviderName" })
			for _, r := range d.rows {
				delete(r, "ServiceProviderName")
			}
		}, want: []string{"CAU-CostAndUsage-D-076-M", "CAU-ServiceProviderName-C-003-M"}},
		{name: "host provider null", version: "1.3", breakIt: func(d *focusDataset) {
			firstUsage(*d)["HostProviderName"] = ""
		}, want: []string{"HostProviderName-text-3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := cloneDataset(exports[tt.version])
			if tt.breakIt != nil {
				tt.breakIt(&d)
			}
			broken, checked := models[tt.version].checkRules(t, d)
			if checked < 150 {
				t.Fatalf("%d rules checked: the rule files lost rules", checked)
			}
			var got []string
			for id := range broken {
				got = append(got, id)
			}
			sort.Strings(got)
			want := slices.Clone(tt.want)
			sort.Strings(want)
			if !slices.Equal(got, want) {
				for _, id := range got {
					t.Logf("%s: %s (%s)", id, broken[id], models[tt.version].ModelRules[id].ValidationCriteria.MustSatisfy)
				}
				t.Errorf("FOCUS %s: broken rules %v, want %v", tt.version, got, want)
			}
		})
	}
}

// TestFOCUSRulesNotApplicable: a rule docs/focus.md lists as not applying
// to a token cost dataset (testdata/focus/model-1.2-not-applicable.json)
// is not among the rules checked, and each has a reason.
func TestFOCUSRulesNotApplicable(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "focus", "model-1.2-not-applicable.json"))
	if err != nil {
		t.Fatal(err)
	}
	var na struct{ NotApplicable map[string][]string }
	if err := json.Unmarshal(data, &na); err != nil {
		t.Fatal(err)
	}
	checked := loadFOCUSModel(t, "model-1.2-rules.json", "model-1.3-rules.json", "model-1.4-rules.json").ModelRules
	n := 0
	for reason, ids := range na.NotApplicable {
		for _, id := range ids {
			n++
			if r, ok := checked[id]; ok && !r.ValidationCriteria.Requirement.usesRules() {
				t.Errorf("%s is checked and listed as not applying (%s)", id, reason)
			}
		}
		if strings.TrimSpace(reason) == "" {
			t.Errorf("rules %v listed without a reason", ids)
		}
	}
	if n < 250 {
		t.Errorf("%d rules listed as not applying: the list lost rules", n)
	}
}

// cloneDataset copies d so that a case can change it.
func cloneDataset(d focusDataset) focusDataset {
	c := focusDataset{header: slices.Clone(d.header)}
	for _, r := range d.rows {
		cr := make(map[string]string, len(r))
		for k, v := range r {
			cr[k] = v
		}
		c.rows = append(c.rows, cr)
	}
	return c
}

// TestFOCUSAIKeys checks the AI properties of SkuPriceDetails against the
// FOCUS 1.5 working draft's rules (specification/datasets/cost_and_usage/
// columns/skupricedetails.md of the draft): TokenCacheAction only on
// tokens consumed from a request, one of Uncached, Read, Write; no
// TokenDirection but on tokens, Input or Output; ModelId the row's
// model. Written with the x_ prefix: 1.3 and 1.4 define no such keys.
func TestFOCUSAIKeys(t *testing.T) {
	want := map[string][2]string{ // usage type: cache action, direction
		"input": {"Uncached", "Input"}, "cache_read": {"Read", "Input"}, "cache_write": {"Write", "Input"},
		"cache_write_1h": {"Write", "Input"}, "output": {"", "Output"}, "reasoning": {"", "Output"},
		"request": {"", ""}, "web_search": {"", ""}, "web_fetch": {"", ""}, "file_search": {"", ""},
	}
	for _, v := range []string{"1.3", "1.4"} {
		t.Run(v, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "focus.csv")
			code, _, stderr := runCLI(t, "", "report", "--calls", sample, "--month", "2026-10", "--focus", path, "--focus-version", v)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			seen := map[string]bool{}
			versions := 0
			for i, r := range readFOCUSDataset(t, path).rows {
				if r["ChargeCategory"] != "Usage" {
					continue
				}
				var d map[string]any
				if err := json.Unmarshal([]byte(r["SkuPriceDetails"]), &d); err != nil {
					t.Fatalf("line %d: SkuPriceDetails %q: %v", i+2, r["SkuPriceDetails"], err)
				}
				w, ok := want[r["x_UsageType"]]
				if !ok {
					t.Fatalf("line %d: usage type %q", i+2, r["x_UsageType"])
				}
				got := [2]string{str(d["x_TokenCacheAction"]), str(d["x_TokenDirection"])}
				if got != w || str(d["x_ModelId"]) != r["x_Model"] {
					t.Errorf("line %d (%s %s): cache action, direction %q, model id %v; want %q, %s", i+2, r["x_Model"], r["x_UsageType"], got, d["x_ModelId"], w, r["x_Model"])
				}
				for _, old := range []string{"x_CacheAction", "TokenCacheAction", "TokenDirection", "ModelId"} {
					if _, ok := d[old]; ok {
						t.Errorf("line %d: SkuPriceDetails has %s: %s", i+2, old, r["SkuPriceDetails"])
					}
				}
				if mv := str(d["x_ModelVersion"]); mv != "" {
					versions++
					if _, err := time.Parse("2006-01-02", mv); err != nil {
						if _, err := time.Parse("20060102", mv); err != nil {
							t.Errorf("line %d: x_ModelVersion %q is no snapshot date", i+2, mv)
						}
					}
				}
				seen[r["x_UsageType"]] = true
			}
			for _, u := range []string{"input", "cache_read", "cache_write", "output"} {
				if !seen[u] {
					t.Errorf("no Usage row of %s: the sample lost a usage type the test needs", u)
				}
			}
			if versions == 0 {
				t.Error("no row carries x_ModelVersion: the sample's models lost their dated ids")
			}
		})
	}
}

// str is a JSON value as text, "" for none.
func str(v any) string {
	s, _ := v.(string)
	return s
}
