package tariffs

import "testing"

// TestDisplayNames: a file's display_name and service_name are the
// provider's and its API's names as the provider writes them; without
// them the provider id stands, and "<name> API".
func TestDisplayNames(t *testing.T) {
	const head = "currency: USD\ntimezone: UTC\nbilling_time: end\nsources:\n  - {url: https://example.com, checked: 2026-12-01, kind: official}\n" +
		"models:\n  - id: m\nversions:\n  - effective: 2026-01-01T00:00:00Z\n    prices:\n      m:\n        standard: {input: 1, output: 2}\n"
	tests := []struct {
		name         string
		names        string
		display, api string
	}{
		{"both given", "display_name: DeepSeek\nservice_name: DeepSeek API\n", "DeepSeek", "DeepSeek API"},
		{"display only", "display_name: ACME Corp\n", "ACME Corp", "ACME Corp API"},
		{"service only", "service_name: Inference\n", "acme", "Inference"},
		{"neither", "", "acme", "acme API"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, ps := Parse("acme.yaml", []byte("provider: acme\n"+tt.names+head))
			if p == nil || len(ps.Errors()) > 0 {
				t.Fatal(ps)
			}
			if p.DisplayName != tt.display || p.ServiceName != tt.api {
				t.Errorf("names %q, %q; want %q, %q", p.DisplayName, p.ServiceName, tt.display, tt.api)
			}
		})
	}
}

// TestEmbeddedDisplayNames: every provider of the embedded catalog says
// how it writes its name, so FOCUS exports do not fall back on ids.
func TestEmbeddedDisplayNames(t *testing.T) {
	cat, ps := Load("")
	if cat == nil {
		t.Fatalf("load: %v", ps)
	}
	for _, p := range cat.Providers {
		if p.DisplayName == p.Name || p.ServiceName == p.Name+" API" {
			t.Errorf("%s: no display_name or service_name (%q, %q)", p.File, p.DisplayName, p.ServiceName)
		}
	}
}
