package reports

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

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
