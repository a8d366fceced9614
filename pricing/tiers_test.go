package pricing

import (
	"strings"
	"testing"

	"github.com/tokenfare/tokenfare/ledger"
)

// TestTierNotes prices calls whose stored request and response name
// tiers: a call served at another tier than it asked for is priced at the
// tier served and explained as tier_not_served; one priced at the tier it
// asked for, only its request stored, as tier_as_requested; the others
// need no word.
func TestTierNotes(t *testing.T) {
	cat := testCatalog(t)
	tests := []struct {
		name          string
		asked, served ledger.ServiceTier
		source        ledger.TierSource
		want          ExplanationKind // numKinds: none
		detail        string
	}{
		{name: "priority asked, served at default", asked: ledger.TierPriority, served: ledger.TierStandard, source: ledger.TierServed,
			want: KindTierNotServed, detail: "1 priced call(s) asked for the priority tier and were served at standard"},
		{name: "flex asked, only the request stored", asked: ledger.TierFlex, served: ledger.TierFlex, source: ledger.TierAsked,
			want: KindTierAsRequested, detail: "1 priced call(s) priced at the flex tier they asked for"},
		{name: "served as asked", asked: ledger.TierPriority, served: ledger.TierPriority, source: ledger.TierServed, want: numKinds},
		{name: "the standard tier asked, only the request stored", asked: ledger.TierStandard, served: ledger.TierStandard,
			source: ledger.TierAsked, want: numKinds},
	}
	plain := New(cat, Options{})
	base := call("p", "flash", "2026-09-01T02:00:00Z", 1000, 0, 100)
	plain.AddPriced(&base)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := New(cat, Options{})
			c := call("r1", "flash", "2026-09-01T02:00:00Z", 1000, 0, 100)
			c.Asked, c.AskedTier, c.ServiceTier, c.TierSource = true, tt.asked, tt.served, tt.source
			if pc := e.AddPriced(&c); pc.Outcome != Priced {
				t.Fatalf("outcome %s, want priced", pc.Outcome)
			}
			r := e.Reconcile()
			var got []Explanation
			for _, x := range r.Explanations {
				if x.Kind == KindTierNotServed || x.Kind == KindTierAsRequested {
					got = append(got, x)
				}
			}
			if tt.want == numKinds {
				if len(got) != 0 {
					t.Errorf("explained %+v, want nothing", got)
				}
				return
			}
			if len(got) != 1 || got[0].Kind != tt.want || got[0].Calls != 1 || !got[0].Amount.IsZero() || !strings.HasPrefix(got[0].Detail, tt.detail) {
				t.Errorf("explained %+v, want one %s of 1 call, amount 0: %q", got, tt.want, tt.detail)
			}
			if tt.served == ledger.TierStandard && !r.Totals.Official.Equal(plain.Reconcile().Totals.Official) {
				t.Errorf("official %s, want the standard tier's %s", r.Totals.Official, plain.Reconcile().Totals.Official)
			}
		})
	}
}
