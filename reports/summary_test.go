package reports

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

// TestSummaryPeriod: the Summary states the month on its own clock and,
// when that is not UTC, in UTC too; a UTC month is said once.
func TestSummaryPeriod(t *testing.T) {
	shanghai, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		zone *time.Location
		want string
	}{
		{name: "UTC", zone: time.UTC, want: "2026-09-01 00:00 to 2026-10-01 00:00 (UTC)"},
		{name: "Beijing time, eight hours ahead", zone: shanghai,
			want: "2026-09-01 00:00 to 2026-10-01 00:00 (Asia/Shanghai), 2026-08-31 16:00 to 2026-09-30 16:00 UTC"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, ps := tariffs.Parse("kindco.yaml", []byte(kindsTariff))
			if p == nil {
				t.Fatal(ps)
			}
			cat, ps := tariffs.New([]*tariffs.Provider{p})
			if cat == nil {
				t.Fatal(ps)
			}
			from := time.Date(2026, 9, 1, 0, 0, 0, 0, tt.zone)
			until := from.AddDate(0, 1, 0)
			e := pricing.New(cat, pricing.Options{Dims: pricing.MonthDims, Since: from, Until: until, Zone: tt.zone})
			end := time.Date(2026, 9, 20, 10, 0, 0, 0, time.UTC)
			c := ledger.Call{RequestID: "a", Identity: "a", Gateway: ledger.LiteLLM, Start: end.Add(-time.Second), End: end,
				Model: "kind-model", Key: "k", Recorded: ledger.AmountOf(decimal.RequireFromString("0.001")),
				Tokens: ledger.Tokens{Input: 1000, Output: 100}}
			e.AddPriced(&c)
			m, err := pricing.MonthOf(e, from, until, nil)
			if err != nil {
				t.Fatal(err)
			}
			f := openWorkbook(t, m, Provenance{Produced: until, Program: "tokenfare test"})
			rows := sheetRows(t, f, SheetSummary)
			got := ""
			for _, r := range rows {
				if len(r) > 1 && r[0] == "Period" {
					got = r[1]
				}
			}
			if got != tt.want {
				t.Errorf("Period %q, want %q", got, tt.want)
			}
		})
	}
}
