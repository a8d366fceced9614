package reports

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
)

func TestReconciliationFailedSplit(t *testing.T) {
	tests := []struct {
		name      string
		failed    int64
		split     *pricing.FailedSplit
		wantTable string // "" when the line must be absent
		wantJSON  string
	}{
		{name: "split shown", failed: 6, split: &pricing.FailedSplit{Upstream: 1, Gateway: 4, Unknown: 1},
			wantTable: "failed    6: upstream 1, gateway 4, unknown 1", wantJSON: `{"upstream":1,"gateway":4,"unknown":1}`},
		{name: "no failed calls", failed: 0, split: &pricing.FailedSplit{}},
		{name: "not classified", failed: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &pricing.Reconciliation{Rows: pricing.Rows{Read: tt.failed, Failed: tt.failed}, Failed: tt.split}
			var tb, jb bytes.Buffer
			if err := Reconciliation(&tb, Table, rec); err != nil {
				t.Fatal(err)
			}
			if err := Reconciliation(&jb, JSON, rec); err != nil {
				t.Fatal(err)
			}
			hasLine := strings.Contains(tb.String(), "\nfailed    ")
			if tt.wantTable == "" && hasLine || tt.wantTable != "" && !strings.Contains(tb.String(), tt.wantTable) {
				t.Errorf("table:\n%s\nwant the line %q", tb.String(), tt.wantTable)
			}
			var doc struct {
				Split json.RawMessage `json:"failed_by_class"`
			}
			if err := json.Unmarshal(jb.Bytes(), &doc); err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if len(doc.Split) > 0 {
				json.Compact(&got, doc.Split)
			}
			if got.String() != tt.wantJSON {
				t.Errorf("failed_by_class = %s, want %s", got.String(), tt.wantJSON)
			}
		})
	}
}

func TestSummaryFailedSplit(t *testing.T) {
	ok := flashCall("ok", "2026-09-10T08:00:00Z", "a", "t", "u")
	bad := flashCall("bad", "2026-09-10T09:00:00Z", "a", "t", "u")
	bad.Status = ledger.StatusFailure
	bad2 := flashCall("bad2", "2026-09-10T09:01:00Z", "a", "t", "u")
	bad2.Status = ledger.StatusFailure
	tests := []struct {
		name  string
		split *pricing.FailedSplit
		want  map[string]string // label → value; nil: no split rows
	}{
		{name: "split", split: &pricing.FailedSplit{Upstream: 1, Gateway: 1},
			want: map[string]string{"  failed: upstream (reached the provider)": "1", "  failed: gateway (refused by the gateway)": "1", "  failed: unknown": "0"}},
		{name: "not classified"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, _ := september(t, []ledger.Call{ok, bad, bad2})
			m.Reconciliation.Failed = tt.split
			f := openWorkbook(t, m, Provenance{})
			rows, err := f.GetRows(SheetSummary)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, r := range rows {
				if len(r) >= 2 && strings.HasPrefix(r[0], "  failed: ") {
					got[r[0]] = r[1]
				}
			}
			if len(got) != len(tt.want) {
				t.Fatalf("split rows %v, want %v", got, tt.want)
			}
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("%q = %q, want %q", k, got[k], v)
				}
			}
		})
	}
}
