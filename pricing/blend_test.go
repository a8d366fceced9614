package pricing

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/tariffs"
)

func TestBlendPerModel(t *testing.T) {
	cat := testCatalog(t)
	from, until := at("2026-08-20T00:00:00Z"), at("2026-09-17T00:00:00Z")
	e := New(cat, Options{Since: from, Until: until})
	// 3M input tokens at peak (0.30), 1M off-peak (0.15): blended input
	// = (0.9 + 0.15) / 4M = 0.2625 per 1M, peak share 0.75.
	for i, end := range []string{"2026-09-01T02:00:00Z", "2026-09-02T02:00:00Z", "2026-09-03T02:00:00Z", "2026-09-05T02:00:00Z"} {
		c := call(string(rune('a'+i)), "flash", end, 100_000, 0, 0)
		for range 10 {
			c.Identity += "x"
			e.AddPriced(&c)
		}
	}
	outside := call("late", "flash", "2026-09-20T02:00:00Z", 1, 0, 1)
	e.AddPriced(&outside)
	bl := e.BlendWindow(from, until, ModePerModel)
	var flash *BlendModel
	for i := range bl.Models {
		if bl.Models[i].Model == "flash" {
			flash = &bl.Models[i]
		}
	}
	if flash == nil || len(flash.Prices) == 0 {
		t.Fatalf("no blend for flash: %+v", bl.Models)
	}
	in := flash.Prices[0]
	if in.Usage != tariffs.Input || !in.Blended.Equal(dec("0.2625")) || !in.PeakShare.Equal(dec("0.75")) ||
		!in.OffPeak.Equal(dec("0.15")) || !in.Peak.Equal(dec("0.3")) || in.ShareUsed.Valid {
		t.Errorf("input blend = %+v, want blended 0.2625, peak share 0.75, between 0.15 and 0.3, no share used", in)
	}
	if !flash.Official.Equal(flash.AtBlended) {
		t.Errorf("official %s, at blended %s: want equal when the blend is exact", flash.Official, flash.AtBlended)
	}
	if bl.Rows.Outside != 1 || bl.Rows.Priced != 40 {
		t.Errorf("rows = %+v, want 40 priced and 1 outside", bl.Rows)
	}
}

// TestBlendInvariants checks on random traffic that every blended price
// lies between the lowest and highest price applied, and that the window's
// quantities at blended prices give its official cost within the stated
// rounding bound.
func TestBlendInvariants(t *testing.T) {
	cat := testCatalog(t)
	rng := rand.New(rand.NewPCG(3, 5))
	from, until := at("2026-09-01T00:00:00Z"), at("2026-09-29T00:00:00Z")
	halfUnit := decimal.New(5, -BlendPlaces-1) // half a unit of the last place, per 1M
	for round := range 10 {
		for _, mode := range []BlendMode{ModePerModel, ModeGateway} {
			e := New(cat, Options{Since: from, Until: until})
			for _, c := range randomCalls(rng, 1500) {
				e.AddPriced(&c)
			}
			bl := e.BlendWindow(from, until, mode)
			for _, m := range bl.Models {
				bound := decimal.Zero
				for _, p := range m.Prices {
					b, lo, hi := p.Blended, p.OffPeak, p.Peak
					if b.LessThan(lo) || b.GreaterThan(hi) {
						t.Errorf("round %d %s %s %s: blended %s outside [%s, %s]", round, mode, m.Model, p.Usage, b, lo, hi)
					}
					per := halfUnit.Mul(decimal.NewFromInt(p.Tokens))
					if p.Usage != tariffs.Request {
						per = per.Shift(-6) // token prices are per 1M
					}
					bound = bound.Add(per)
				}
				if mode == ModePerModel && m.Reason == "" {
					diff := m.AtBlended.Sub(m.Official).Abs()
					if diff.GreaterThan(bound) {
						t.Errorf("round %d %s: at blended %s, official %s: off by %s, more than %s", round, m.Model, m.AtBlended, m.Official, diff, bound)
					}
				}
			}
		}
	}
}

func TestBlendGatewayShare(t *testing.T) {
	cat := testCatalog(t)
	from, until := at("2026-08-20T00:00:00Z"), at("2026-09-17T00:00:00Z")
	e := New(cat, Options{Since: from, Until: until})
	// At off-peak prices: peak 1M input (0.15) + 0 ; off-peak 1M output (0.60):
	// peak share of cost = 0.15 / 0.75 = 0.2.
	a := call("a", "flash", "2026-09-01T02:00:00Z", 100_000, 0, 0)
	for range 10 {
		a.Identity += "x"
		e.AddPriced(&a)
	}
	b := call("b", "flash", "2026-09-05T02:00:00Z", 0, 0, 100_000)
	for range 10 {
		b.Identity += "y"
		e.AddPriced(&b)
	}
	bl := e.BlendWindow(from, until, ModeGateway)
	if !bl.PeakShare.Valid || !bl.PeakShare.Decimal.Equal(dec("0.2")) {
		t.Fatalf("peak share = %v, want 0.2", bl.PeakShare)
	}
	for _, m := range bl.Models {
		if m.Model != "flash" {
			continue
		}
		for _, p := range m.Prices {
			// off-peak + 0.2 × (peak − off-peak): input 0.15 + 0.03, output 0.6 + 0.12
			want, checked := map[tariffs.Usage]string{tariffs.Input: "0.18", tariffs.Output: "0.72"}[p.Usage]
			if checked && !p.Blended.Equal(dec(want)) {
				t.Errorf("%s blended %s, want %s", p.Usage, p.Blended, want)
			}
			// Each price shows the gateway-wide share it comes from, not
			// its own tokens' share (input all peak: 1, output none: 0).
			if checked && (!p.ShareUsed.Valid || !p.ShareUsed.Decimal.Equal(dec("0.2"))) {
				t.Errorf("%s share used %v, want 0.2 (own peak share %s)", p.Usage, p.ShareUsed, p.PeakShare)
			}
		}
	}
}

func TestBlendListsModelsWithoutCalls(t *testing.T) {
	cat := testCatalog(t)
	from, until := at("2026-09-01T00:00:00Z"), at("2026-09-29T00:00:00Z")
	bl := New(cat, Options{Since: from, Until: until}).BlendWindow(from, until, ModePerModel)
	reasons := map[string]string{}
	for _, m := range bl.Models {
		reasons[m.Model] = m.Reason
	}
	if reasons["flash"] == "" || reasons["dst-model"] == "" {
		t.Errorf("models without calls should carry a reason: %v", reasons)
	}
	if _, listed := reasons["old"]; listed {
		t.Errorf("a retired model is listed: %v", reasons)
	}
}

func TestBlendWithCalls(t *testing.T) {
	priced := BlendModel{Model: "priced", Calls: 3, Prices: []BlendPrice{{Usage: tariffs.Input, Tokens: 10}}}
	batch := BlendModel{Model: "batch-only", Reason: "no priced calls in the window at the standard tier without a region",
		LeftOut: []BlendLeftOut{{What: "service tier batch", Unit: "calls", Quantity: 2}}}
	idle := BlendModel{Model: "idle", Reason: "no priced calls in the window"}
	tests := []struct {
		name    string
		models  []BlendModel
		want    []string
		without int
	}{
		{"every model with calls", []BlendModel{priced, batch}, []string{"priced", "batch-only"}, 0},
		{"idle models dropped, order kept", []BlendModel{idle, priced, idle, batch}, []string{"priced", "batch-only"}, 2},
		{"calls left out at another tier count as calls", []BlendModel{batch, idle}, []string{"batch-only"}, 1},
		{"no model with calls", []BlendModel{idle, idle, idle}, []string{}, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			bl := &Blend{Mode: ModeGateway, Models: tc.models}
			got := bl.WithCalls()
			names := []string{}
			for _, m := range got.Models {
				names = append(names, m.Model)
			}
			if !slices.Equal(names, tc.want) || got.WithoutCalls != tc.without {
				t.Errorf("got %v with %d left out, want %v with %d", names, got.WithoutCalls, tc.want, tc.without)
			}
			if got.Mode != bl.Mode || len(bl.Models) != len(tc.models) || bl.WithoutCalls != 0 {
				t.Errorf("WithCalls changed the blend or lost its fields: %+v -> %+v", bl, got)
			}
		})
	}
}
