package drift

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tokenfare/tokenfare/tariffs"
)

// TestPublishedTable reads LiteLLM's whole table as published (see
// testdata/litellm/README.md): every key is read or skipped with its
// reason, and none ends the run.
func TestPublishedTable(t *testing.T) {
	db := readDB(t, "litellm/model_prices_and_context_window.json.gz")
	var skipped []string
	for _, s := range db.Skipped {
		skipped = append(skipped, s.Name+": "+s.Reason)
	}
	want := []string{
		"exa_ai/search: tiered_pricing[0]: range is not [from, to]",
		"firecrawl/search: tiered_pricing[0]: range is not [from, to]",
	}
	// 2,985 keys, less sample_spec and the copy's last_updated, its date.
	if db.Read != 2983 || len(db.Entries) != 2981 || !slices.Equal(skipped, want) {
		t.Errorf("read %d, entries %d, skipped %q; want 2983, 2981, %q", db.Read, len(db.Entries), skipped, want)
	}
	if want := time.Date(2026, 7, 24, 18, 23, 43, 215560000, time.UTC); !db.Date.Equal(want) {
		t.Errorf("date %v, want %v", db.Date, want)
	}
}

// TestPublishedEntries compares the trimmed copies with the embedded
// catalog and checks what must hold whatever the catalog's figures: the
// entries that broke the reader are skipped, entries without prices and
// other modes make no finding, DeepSeek's cache_creation_input_token_cost
// of 0 is no difference, and a dated id of a catalog model is never a
// model "only in" LiteLLM.
func TestPublishedEntries(t *testing.T) {
	cat, ps := tariffs.Load("")
	if cat == nil {
		t.Fatal(ps)
	}
	trimmed, tail := readDB(t, "litellm/trimmed.json"), readDB(t, "litellm/berriai-tail.json")
	if len(trimmed.Skipped) != 2 || trimmed.Read != 25 || trimmed.Date.IsZero() {
		t.Errorf("trimmed: read %d, skipped %v, date %v; want 25 read, 2 skipped, the copy's date", trimmed.Read, trimmed.Skipped, trimmed.Date)
	}
	if len(tail.Skipped) != 0 || tail.Read != 6 {
		t.Errorf("tail: read %d, skipped %v; want 6 read, none skipped", tail.Read, tail.Skipped)
	}
	at := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	for _, f := range Compare(cat, []*Database{trimmed, tail}, at, ScopeAll) {
		name := ""
		if f.Entry != nil {
			name = f.Entry.Name
		}
		switch {
		case name == "sample_spec" || name == "1024-x-1024/dall-e-2" || name == "fallback_generalizations":
			t.Errorf("an entry without token prices makes a finding: %s", describe(f))
		case f.Kind == PriceDiffers && f.Usage == tariffs.CacheWrite && strings.Contains(name, "deepseek"):
			t.Errorf("DeepSeek's cache writes at 0 are billed as input: %s", describe(f))
		case f.Kind == OnlyInOther && (name == "gpt-5.4-2026-03-05" || name == "claude-opus-4-6-20260205"):
			t.Errorf("a dated id of a catalog model: %s", describe(f))
		}
	}
}
