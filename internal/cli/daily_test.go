package cli

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/internal/pgtest"
)

// TestDailyTables gives reconcile and report a LiteLLM database whose
// daily table counts every call of the sample dump, and whose spend logs
// lost rows: three deleted from the middle of the month (counted but not
// logged), or every row started before 2026-10-03 (deleted by the logs'
// retention, not lost money).
func TestDailyTables(t *testing.T) {
	header, rows := csvLines(t, sampleDump)
	at := map[string]int{}
	for i, h := range splitCSVHeader(header) {
		at[h] = i
	}
	// Three rows of the middle of the dump: their spend, as the file
	// writes it.
	var ids []string
	deleted := decimal.Zero
	for _, r := range rows[500:503] {
		f := splitCSVHeader(r)
		ids = append(ids, f[at["request_id"]])
		deleted = deleted.Add(decimal.RequireFromString(f[at["spend"]]))
	}
	tests := []struct {
		name     string
		delete   string
		args     []any
		kind     string
		requests int64
		spend    decimal.Decimal // daily less logged; zero: not checked
	}{
		{name: "three rows deleted", delete: `DELETE FROM "LiteLLM_SpendLogs" WHERE request_id = ANY($1)`, args: []any{ids},
			kind: "missing_from_spend_logs", requests: 3, spend: deleted},
		{name: "past the retention", delete: `DELETE FROM "LiteLLM_SpendLogs" WHERE "startTime" < '2026-10-03'`, kind: "beyond_retention"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := pgtest.NewLiteLLM(t, pgtest.SchemaCurrent)
			db.LoadDump(t, sampleDump)
			db.FillDaily(t)
			db.Exec(t, tt.delete, tt.args...)
			code, out, errs := runCLI(t, "", "reconcile", "--db", db.URL, "-o", "json")
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, errs)
			}
			var doc struct {
				DailyTables []struct {
					Table       string
					Differences []struct {
						Kind   string
						Groups int64
						Counts struct {
							Requests int64
							Spend    string
						} `json:"daily_less_logged"`
					}
				} `json:"daily_tables"`
			}
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatal(err)
			}
			if len(doc.DailyTables) != 1 || doc.DailyTables[0].Table != "LiteLLM_DailyUserSpend" || len(doc.DailyTables[0].Differences) != 1 {
				t.Fatalf("daily tables %+v: want one, LiteLLM_DailyUserSpend, with one kind of difference", doc.DailyTables)
			}
			d := doc.DailyTables[0].Differences[0]
			if d.Kind != tt.kind || (tt.requests != 0 && d.Counts.Requests != tt.requests) ||
				(!tt.spend.IsZero() && !mustDecimal(t, d.Counts.Spend).Sub(tt.spend).Abs().LessThan(decimal.New(1, -9))) {
				t.Errorf("difference %+v: want %s, %d request(s), %s spend", d, tt.kind, tt.requests, tt.spend)
			}
			code, out, errs = runCLI(t, "", "report", "--db", db.URL, "--month", "2026-10", "--tz", "UTC", "--xlsx", filepath.Join(t.TempDir(), "m.xlsx"))
			if code != exitOK {
				t.Fatalf("report: exit %d: %s", code, errs)
			}
			checkContains(t, "report", out, "daily table LiteLLM_DailyUserSpend")
			checkContains(t, "report", out, tt.kind)
		})
	}
}

// splitCSVHeader splits a line of the dump that holds no quoted comma.
func splitCSVHeader(line string) []string {
	var out []string
	start := 0
	for i := 0; i < len(line); i++ {
		if line[i] == ',' {
			out = append(out, line[start:i])
			start = i + 1
		}
	}
	return append(out, line[start:])
}
