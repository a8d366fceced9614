package reports

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/tokenfare/tokenfare/tariffs/drift"
)

// TestDriftWithoutDifferences checks the empty comparison in every format:
// JSON keeps an empty list (scripts test its length), the table says so.
func TestDriftWithoutDifferences(t *testing.T) {
	at := time.Date(2026, 10, 12, 12, 0, 0, 0, time.UTC)
	dbs := []*drift.Database{{Format: drift.LiteLLM, File: "prices.json"}}
	tests := []struct {
		f    Format
		want string
	}{
		{Table, "prices.json: litellm, 0 entries read, 0 skipped\nno differences at 2026-10-12T12:00:00Z\n"},
		{CSV, "kind,model,file,name,source,usage,above,period,catalog,other,from,until,note,service_tier,region,currency\n"},
		{JSON, "{\n  \"at\": \"2026-10-12T12:00:00Z\",\n  \"files\": [\n    {\n      \"file\": \"prices.json\",\n      \"format\": \"litellm\",\n      \"read\": 0,\n      \"entries\": 0,\n      \"skipped\": []\n    }\n  ],\n  \"differences\": []\n}\n"},
		{YAML, "at: \"2026-10-12T12:00:00Z\"\nfiles:\n  - file: prices.json\n    format: litellm\n    read: 0\n    entries: 0\n    skipped: []\ndifferences: []\n"},
	}
	for _, tt := range tests {
		t.Run(tt.f.String(), func(t *testing.T) {
			var b bytes.Buffer
			if err := Drift(&b, tt.f, at, dbs, nil); err != nil {
				t.Fatal(err)
			}
			if b.String() != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", b.String(), tt.want)
			}
		})
	}
	if err := Drift(&bytes.Buffer{}, numFormats, at, dbs, nil); err == nil || !strings.Contains(err.Error(), "cannot be written") {
		t.Errorf("unknown format: err = %v", err)
	}
}
