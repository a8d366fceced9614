package litellm

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/tokenfare/tokenfare/reports/textdiff"
)

// FuzzUpdate feeds arbitrary configs to Parse, Check and Update: none
// panics, an update always parses again, and a second update with the same
// prices changes nothing.
func FuzzUpdate(f *testing.F) {
	files, _ := filepath.Glob("testdata/*/*.yaml")
	for _, p := range files {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("model_list:\n  - model_name: a\n    litellm_params: {model: gpt-4o}\n"))
	cat, ps := tariffsForFuzz()
	if cat == nil {
		f.Fatal(ps)
	}
	prices := blendPrices(cat)
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse("fuzz.yaml", data)
		if err != nil {
			return
		}
		c.Check(CheckOptions{Catalog: cat, At: testAt, MaxCooldown: 15e9, MinAllowedFails: 3, MinRateLimitRetries: 1,
			Private: []string{"private/*", "*"}, PrivateDomains: []string{"corp.internal"}})
		opts := UpdateOptions{Catalog: cat, Prices: prices, At: testAt}
		u, err := c.Update(opts)
		if err != nil {
			return
		}
		c2, err := Parse("fuzz.yaml", u.Data)
		if err != nil {
			t.Fatalf("updated config does not parse: %v\n%s", err, u.Data)
		}
		u2, err := c2.Update(opts)
		if err != nil {
			t.Fatalf("second update: %v\n%s", err, u.Data)
		}
		if !bytes.Equal(u2.Data, u.Data) {
			t.Fatalf("second update changed the config:\n%s", textdiff.Unified("first", "second", u.Data, u2.Data))
		}
	})
}
