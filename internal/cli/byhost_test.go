package cli

import (
	"encoding/json"
	"testing"

	"github.com/tokenfare/tokenfare/internal/pgtest"
)

// TestReconcileByHost: --by host,model gives each host its own groups,
// the EU data-zone deployment priced at the key LiteLLM logged; read from
// the file, from the database row by row and summed in the database, the
// groups are the same to the last digit.
func TestReconcileByHost(t *testing.T) {
	const file = "../../testdata/hosts/spendlogs-pricekey.csv"
	groups := func(t *testing.T, args ...string) string {
		t.Helper()
		code, stdout, stderr := runCLI(t, "", append([]string{"reconcile", "--by", "host,model", "-o", "json"}, args...)...)
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		var doc struct {
			By     []string          `json:"by"`
			Groups []json.RawMessage `json:"groups"`
		}
		if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(doc)
		return string(b)
	}
	want := groups(t, "--calls", file)
	var doc struct {
		By     []string `json:"by"`
		Groups []struct {
			Keys     map[string]string `json:"keys"`
			Official string            `json:"official"`
		} `json:"groups"`
	}
	if err := json.Unmarshal([]byte(want), &doc); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, g := range doc.Groups {
		if g.Keys["host"] == "azure" && g.Keys["model"] == "azure-gpt-4o-datazone" {
			found = g.Official == "1.045" // 160,000 x 2.75 + 40,000 x 1.375 + 50,000 x 11 per 1M
		}
	}
	if len(doc.By) != 2 || doc.By[0] != "host" || !found {
		t.Fatalf("by %v; want host, model and the data-zone group at 1.045:\n%s", doc.By, want)
	}

	db := pgtest.NewLiteLLM(t, pgtest.SchemaCurrent)
	db.LoadDump(t, file)
	for _, mode := range [][]string{{"--db", db.URL, "--rows"}, {"--db", db.URL, "--push-down"}, {"--db", db.URL}} {
		if got := groups(t, mode...); got != want {
			t.Errorf("%v: groups differ from the file's:\n%s\nwant:\n%s", mode, got, want)
		}
	}
}
