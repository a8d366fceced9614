package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/internal/run"
	"github.com/tokenfare/tokenfare/internal/state"
	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

// TestStateBlend: the blend serve holds a config's prices against, worked
// from the state's sums, is blend's own over the same 28 days at the same
// tariff, every model and usage type to the last decimal, fees per use (web
// search) included.
func TestStateBlend(t *testing.T) {
	const sample = "../../testdata/sample/spendlogs-2026-10.csv"
	code, out, errs := runCLI(t, "", "blend", "--calls", sample, "--as-of", "2026-11-01", "-o", "json")
	if code != exitOK {
		t.Fatalf("blend: exit %d: %s", code, errs)
	}
	var want struct {
		Models []struct {
			Model  string
			Prices []struct{ Usage, Blended string }
		}
	}
	if err := json.Unmarshal([]byte(out), &want); err != nil {
		t.Fatal(err)
	}
	cat, ps := tariffs.Load("")
	if errs := ps.Errors(); len(errs) > 0 {
		t.Fatal(errs)
	}
	s, err := state.Open(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	feed := state.Feed{Name: sample, Open: func(time.Time, *ledger.Known) ([]ledger.Source, error) {
		return []ledger.Source{ledger.FileSource(sample, ledger.Options{})}, nil
	}}
	if _, err := run.Refresh(context.Background(), s, cat, pricing.Options{}, []state.Feed{feed}, false); err != nil {
		t.Fatal(err)
	}
	until := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	got, err := run.StateBlend(s, cat, until.Add(-28*24*time.Hour), until, until, nil)
	if err != nil {
		t.Fatal(err)
	}
	n, fees := 0, 0
	for _, m := range want.Models {
		for _, p := range m.Prices {
			u, err := tariffs.ParseUsage(p.Usage)
			if err != nil || u == tariffs.Request || p.Blended == "" {
				continue
			}
			if !u.IsToken() {
				fees++ // a fee per use (web search): blend writes it too
			}
			r := got[cat.Model(m.Model)]
			if r == nil {
				t.Errorf("%s: no blend from the state", m.Model)
				continue
			}
			n++
			if w := decimal.RequireFromString(p.Blended); !r.Price(u).Equal(w) {
				t.Errorf("%s %s: state %s, blend %s", m.Model, p.Usage, r.Price(u), w)
			}
		}
	}
	if n < 10 || fees == 0 {
		t.Errorf("%d prices compared, %d of them fees per use, want the sample's models' token prices and fees", n, fees)
	}
}
