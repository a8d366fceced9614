package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/xuri/excelize/v2"

	"github.com/tokenfare/tokenfare/reports"
)

// The hand-made catalog of testdata/unpriced: acme (first party) prices
// acme-1 from v1 (2026-09-01), retires acme-old in v2 (2026-10-01) and
// prices acme-new from v3 (2026-11-01); peer, a list resting on
// secondary sources only, prices beta-2 on openrouter. The calls of
// October 2026 leave one cause or another for each model.
const (
	unpricedCalls   = "testdata/unpriced/calls.jsonl"
	unpricedTariffs = "testdata/unpriced/tariffs"
)

type unpricedEntry struct {
	Model    string `json:"model"`
	Host     string `json:"host"`
	Outcome  string `json:"outcome"`
	Cause    string `json:"cause"`
	Calls    int64  `json:"calls"`
	Recorded string `json:"recorded"`
	PricedOn []struct {
		Host      string `json:"host"`
		Secondary bool   `json:"secondary"`
	} `json:"priced_on"`
	Version   string `json:"version"`
	Since     string `json:"since"`
	Secondary bool   `json:"secondary"`
	Detail    string `json:"detail"`
	Hint      string `json:"hint"`
}

// wantUnpriced is what the calls file leaves without a price, worked by
// hand from the file: the calls and recorded spend of each model, host
// and cause.
var wantUnpriced = []struct {
	model, host, outcome, cause string
	calls                       int64
	recorded                    string
	pricedOn                    string // host:secondary, comma-separated
	version, since              string
	detail, hint                string // parts each must hold
}{
	{model: "acme-1", host: "azure", outcome: "unpriced", cause: "not_on_host", calls: 1, recorded: "0.3", pricedOn: "acme:false",
		detail: "no tariff prices host azure; the catalog prices it on acme", hint: "give host azure a price for acme-1 in a tariff file with hosts: [azure]"},
	{model: "acme-1", host: "openrouter", outcome: "unpriced", cause: "not_on_host", calls: 1, recorded: "0.2", pricedOn: "acme:false",
		detail: "the tariffs of host openrouter do not list it; the catalog prices it on acme", hint: "hosts: [openrouter]"},
	{model: "acme-new", outcome: "unpriced", cause: "not_yet_priced", calls: 1, recorded: "0.5", version: "v3", since: "2026-11-01T00:00:00Z",
		detail: "billed before its first price, version v3 in force from 2026-11-01T00:00:00Z", hint: "check the calls' billing instants"},
	{model: "acme-old", outcome: "retired", cause: "retired", calls: 1, recorded: "0.4", version: "v2", since: "2026-10-01T00:00:00Z",
		detail: "its provider retired it at 2026-10-01T00:00:00Z (version v2)", hint: "price it in a version after v2"},
	{model: "beta-2", outcome: "unpriced", cause: "not_on_host", calls: 1, recorded: "0.6", pricedOn: "openrouter:true",
		detail: "the catalog prices it on openrouter (a price resting on secondary sources only", hint: "e.g. openrouter/beta-2"},
	{model: "mystery-9", outcome: "unpriced", cause: "not_in_catalog", calls: 2, recorded: "0.15",
		detail: "2 call(s) of mystery-9: no list of the catalog names the model, on any host; the gateway recorded 0.15 for them",
		hint:   "price it knowingly from a peer table: tokenfare tariffs import TABLE --out DIR, then --tariffs-overlay DIR"},
}

// checkUnpriced holds entries against wantUnpriced, in order.
func checkUnpriced(t *testing.T, got []unpricedEntry) {
	t.Helper()
	if len(got) != len(wantUnpriced) {
		t.Fatalf("%d unpriced entries, want %d: %+v", len(got), len(wantUnpriced), got)
	}
	for i, w := range wantUnpriced {
		g := got[i]
		var on []string
		for _, p := range g.PricedOn {
			on = append(on, p.Host+":"+map[bool]string{true: "true", false: "false"}[p.Secondary])
		}
		gotKey := []string{g.Model, g.Host, g.Outcome, g.Cause, strings.Join(on, ","), g.Version, g.Since}
		wantKey := []string{w.model, w.host, w.outcome, w.cause, w.pricedOn, w.version, w.since}
		if strings.Join(gotKey, "|") != strings.Join(wantKey, "|") || g.Calls != w.calls {
			t.Errorf("entry %d: got %v, %d calls; want %v, %d calls", i, gotKey, g.Calls, wantKey, w.calls)
		}
		if !decimal.RequireFromString(g.Recorded).Equal(decimal.RequireFromString(w.recorded)) {
			t.Errorf("%s %s: recorded %s, want %s", w.model, w.cause, g.Recorded, w.recorded)
		}
		if !strings.Contains(g.Detail, w.detail) || !strings.Contains(g.Hint, w.hint) {
			t.Errorf("%s %s: detail %q hint %q; want them to hold %q and %q", w.model, w.cause, g.Detail, g.Hint, w.detail, w.hint)
		}
	}
}

// TestReconcileUnpricedCauses: reconcile's JSON names each model left
// without a price, its host, calls, recorded spend, cause and hint; the
// explanations carry the cause too, and their amounts are minus the
// recorded spend.
func TestReconcileUnpricedCauses(t *testing.T) {
	code, out, errs := runCLI(t, "", "reconcile", "--calls", unpricedCalls, "--tariffs", unpricedTariffs, "-o", "json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Explanations []struct {
			Kind, Model, Host, Amount, Cause, Hint, Detail string
			Calls                                          int64
		} `json:"explanations"`
		Unpriced []unpricedEntry `json:"unpriced"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	checkUnpriced(t, doc.Unpriced)
	want := map[string]struct{ kind, amount, cause string }{
		"acme-1@openrouter": {"unpriced_model", "-0.2", "not_on_host"},
		"acme-new@":         {"unpriced_model", "-0.5", "not_yet_priced"},
		"acme-old@":         {"retired_model", "-0.4", "retired"},
		"beta-2@":           {"unpriced_model", "-0.6", "not_on_host"},
		"mystery-9@":        {"unpriced_model", "-0.15", "not_in_catalog"},
		"@azure":            {"unpriced_host", "-0.3", ""},
		"beta-2@+":          {"secondary_price", "0", ""},
	}
	seen := 0
	for _, x := range doc.Explanations {
		k := x.Model + "@" + x.Host
		if x.Kind == "secondary_price" {
			k += "+"
		}
		w, ok := want[k]
		if !ok {
			continue
		}
		seen++
		if x.Kind != w.kind || x.Amount != w.amount || x.Cause != w.cause {
			t.Errorf("explanation %s: %s %s %q, want %s %s %q", k, x.Kind, x.Amount, x.Cause, w.kind, w.amount, w.cause)
		}
		if x.Kind == "unpriced_host" && !strings.Contains(x.Detail, "the catalog prices acme-1 on acme") {
			t.Errorf("unpriced_host detail %q names no host pricing acme-1", x.Detail)
		}
		if x.Kind == "secondary_price" && (x.Calls != 1 || !strings.Contains(x.Detail, "priced at peer's tariff, official 1:")) {
			t.Errorf("secondary_price: %d calls, %q", x.Calls, x.Detail)
		}
		if x.Kind != "secondary_price" && x.Hint == "" {
			t.Errorf("explanation %s has no hint", k)
		}
	}
	if seen != len(want) {
		t.Errorf("found %d of the %d explanations wanted: %+v", seen, len(want), doc.Explanations)
	}
}

// TestUnpricedNotedOnStderr: whatever the output (CSV names none of it),
// stderr names each unpriced model with its cause and what to do, and the
// table has a section of them.
func TestUnpricedNotedOnStderr(t *testing.T) {
	for _, format := range []string{"csv", "table"} {
		t.Run(format, func(t *testing.T) {
			code, out, errs := runCLI(t, "", "reconcile", "--calls", unpricedCalls, "--tariffs", unpricedTariffs, "-o", format)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, errs)
			}
			for _, w := range wantUnpriced {
				if !strings.Contains(errs, "note: no price ("+w.cause+"): ") || !strings.Contains(errs, w.detail) || !strings.Contains(errs, "try: ") {
					t.Errorf("stderr lacks %s (%s): %s", w.model, w.cause, errs)
				}
			}
			inTable := strings.Contains(out, "unpriced calls (no official cost") && strings.Contains(out, "  not_in_catalog 2 call(s) of mystery-9")
			if inTable != (format == "table") {
				t.Errorf("-o %s: unpriced section in output %v:\n%s", format, inTable, out)
			}
		})
	}
}

// TestChargebackUnpriced: chargeback's JSON lists the calls without a
// price as reconcile does, and its table ends with them.
func TestChargebackUnpriced(t *testing.T) {
	args := []string{"chargeback", "--calls", unpricedCalls, "--tariffs", unpricedTariffs, "--month", "2026-10", "--by", "key"}
	code, out, errs := runCLI(t, "", append(args, "-o", "json")...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Unpriced []unpricedEntry `json:"unpriced"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	checkUnpriced(t, doc.Unpriced)
	_, out, _ = runCLI(t, "", args...)
	if !strings.Contains(out, "  retired        1 call(s) of acme-old: its provider retired it at 2026-10-01T00:00:00Z") {
		t.Errorf("chargeback table lacks the retired model:\n%s", out)
	}
}

// TestWorkbookUnpricedWhatToDo: the workbook's Discrepancies sheet says
// what would price each unpriced model.
func TestWorkbookUnpricedWhatToDo(t *testing.T) {
	xlsx := filepath.Join(t.TempDir(), "oct.xlsx")
	code, _, errs := runCLI(t, "", "report", "--calls", unpricedCalls, "--tariffs", unpricedTariffs, "--month", "2026-10", "--xlsx", xlsx)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	f, err := excelize.OpenFile(xlsx)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := f.GetRows(reports.SheetDiscrepancies)
	if err != nil {
		t.Fatal(err)
	}
	todo := column(t, f, reports.SheetDiscrepancies, "What to do")
	want := map[string]string{
		"mystery-9":  "tokenfare tariffs import TABLE --out DIR",
		"acme-old":   "price it in a version after v2",
		"host azure": "give host azure a tariff file with hosts: [azure]",
	}
	for i, r := range rows {
		if len(r) < 2 || want[r[1]] == "" {
			continue
		}
		v, _ := f.GetCellValue(reports.SheetDiscrepancies, todo+itoa(i+1))
		if !strings.Contains(v, want[r[1]]) {
			t.Errorf("%s: What to do %q, want it to hold %q", r[1], v, want[r[1]])
		}
		delete(want, r[1])
	}
	if len(want) > 0 {
		t.Errorf("no Discrepancies rows for %v", want)
	}
}

// TestNothingPricedSaysWhatWouldPrice: a run whose calls are all of a
// model the catalog lacks says so and names tariffs import.
func TestNothingPricedSaysWhatWouldPrice(t *testing.T) {
	data, err := os.ReadFile(unpricedCalls)
	if err != nil {
		t.Fatal(err)
	}
	var in []string
	for _, l := range strings.Split(string(data), "\n") {
		if strings.Contains(l, `"mystery-9"`) {
			in = append(in, l)
		}
	}
	code, _, errs := runCLI(t, strings.Join(in, "\n")+"\n", "reconcile", "--calls", "-", "--tariffs", unpricedTariffs)
	if code != exitFindings {
		t.Fatalf("exit %d, want %d: %s", code, exitFindings, errs)
	}
	want := "for mystery-9 (not_in_catalog, 2 call(s)): price it knowingly from a peer table: tokenfare tariffs import TABLE --out DIR"
	if !strings.Contains(errs, want) {
		t.Errorf("stderr lacks %q:\n%s", want, errs)
	}
}
