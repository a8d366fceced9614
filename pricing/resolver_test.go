package pricing

import (
	"testing"
	"time"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/tariffs"
)

func hostCatalog(t *testing.T) *tariffs.Catalog {
	t.Helper()
	cat, ps := tariffs.Load("../testdata/hosts/tariffs")
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	return cat
}

// modelID returns the id of m, "" for none.
func modelID(m *tariffs.Model) string {
	if m == nil {
		return ""
	}
	return m.ID
}

func TestResolverResolve(t *testing.T) {
	tests := []struct {
		name                         string
		call                         ledger.Call
		model, host, noTariff, named string
	}{
		{"first-party lists without a host", ledger.Call{Model: "gpt-4o"}, "gpt-4o", "", "", ""},
		{"the host's own list", ledger.Call{Model: "gpt-4o", Host: "azure"}, "azure-gpt-4o", "azure", "", ""},
		{"the group names a deployment's model", ledger.Call{Model: "my-deployment", ModelGroup: "gpt-4o", Host: "azure"},
			"azure-gpt-4o", "azure", "", ""},
		{"the price key first", ledger.Call{Model: "claude-sonnet-4-6", PriceKey: "gpt-4o", Host: "azure"},
			"azure-gpt-4o", "azure", "", ""},
		{"a price key naming a host passed over without one", ledger.Call{Model: "claude-sonnet-4-6", PriceKey: "azure/gpt-4o"},
			"claude-sonnet-4-6", "", "", ""},
		{"a host no tariff prices, by its normal name", ledger.Call{Model: "gpt-4o", Host: "together"}, "", "together_ai", "together_ai", ""},
		{"a name no list knows", ledger.Call{Model: "mystery"}, "", "", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n := newResolver(hostCatalog(t), time.Time{}, 0)
			r := n.ref(&tc.call)
			if got := modelID(r.model); got != tc.model || r.host != tc.host || r.noTariff != tc.noTariff || r.name != tc.named {
				t.Errorf("model %q host %q no tariff %q name %q; want %q %q %q %q",
					got, r.host, r.noTariff, r.name, tc.model, tc.host, tc.noTariff, tc.named)
			}
			if (r.cursor != nil) != (tc.model != "") {
				t.Errorf("cursor %v for model %q", r.cursor, tc.model)
			}
		})
	}
}

func TestResolverKeepsEachNameOnce(t *testing.T) {
	n := newResolver(hostCatalog(t), time.Time{}, 0)
	a, b := ledger.Call{Model: "gpt-4o"}, ledger.Call{Model: "gpt-4o", Host: "azure"}
	first := n.ref(&a)
	for i := range 20 { // past the recent names, from the map
		n.ref(&ledger.Call{Model: "gpt-4o", ModelGroup: string(rune('a' + i))})
	}
	if again := n.ref(&a); again != first {
		t.Errorf("the same name resolved twice: %p then %p", first, again)
	}
	if n.ref(&b) == first {
		t.Error("another host shares the first-party ref")
	}
	if got, want := len(n.refs), 22; got != want {
		t.Errorf("%d names kept, want %d", got, want)
	}
}

func TestResolverBudgetOfNames(t *testing.T) {
	n := newResolver(hostCatalog(t), time.Time{}, 2)
	calls := []ledger.Call{
		{Model: "gpt-4o"}, {Model: "claude-sonnet-4-6"}, // within the budget
		{Model: "gpt-4o-2024-11-20", Host: "azure"}, // beyond: under azure-gpt-4o
		{Model: "mystery-a"}, {Model: "mystery-b"},  // beyond, unknown: one OtherNames
		{Model: "mystery-a"}, // a recent name: not counted again
	}
	refs := make([]*modelRef, len(calls))
	for i := range calls {
		refs[i] = n.ref(&calls[i])
	}
	if len(n.refs) != 2 || n.foldedNames != 3 {
		t.Errorf("%d names kept, %d folded; want 2 and 3", len(n.refs), n.foldedNames)
	}
	if modelID(refs[2].model) != "azure-gpt-4o" || refs[2].name != "" {
		t.Errorf("a priced name beyond the budget: %q named %q, want azure-gpt-4o", modelID(refs[2].model), refs[2].name)
	}
	if refs[3] != refs[4] || refs[3] != refs[5] || refs[3].name != OtherNames {
		t.Errorf("unknown names beyond the budget: %p %p %p named %q, want one ref named %q", refs[3], refs[4], refs[5], refs[3].name, OtherNames)
	}
}

func TestResolverTariffAt(t *testing.T) {
	cat := testCatalog(t)
	asOf := at("2026-01-01T00:00:00Z")
	for _, tc := range []struct {
		tariffAt time.Time
		want     *tariffs.Cursor
	}{{time.Time{}, cat.Model("flash").Cursor()}, {asOf, cat.Model("flash").CursorAtTariffOf(asOf)}} {
		n := newResolver(cat, tc.tariffAt, 0)
		r := n.ref(&ledger.Call{Model: "flash"})
		if r.cursor == nil || *r.cursor != *tc.want {
			t.Errorf("tariff at %v: cursor %+v, want %+v", tc.tariffAt, r.cursor, tc.want)
		}
	}
}
