package drift

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tokenfare/tokenfare/tariffs"
)

// TestJudgedDifferences runs the comparison on small tables holding peers'
// figures for models whose differences docs/tariffs.md judges ("Drift
// against three peers"), against the embedded catalog at the models.dev
// copy's date, and checks that exactly those differences are found. A
// catalog change that settles one of them (or a reading of the peers'
// formats that loses one) fails here, and the judgement is to be revisited.
func TestJudgedDifferences(t *testing.T) {
	cat, ps := tariffs.Load("")
	if cat == nil {
		t.Fatal(ps)
	}
	var dbs []*Database
	for _, name := range []string{"judged/api.json", "judged/openrouter.yml"} {
		dbs = append(dbs, readDB(t, name))
	}
	at := time.Date(2026, 7, 2, 12, 0, 0, 0, time.UTC)
	var got []string
	for _, f := range Compare(cat, dbs, at, ScopeCatalog) {
		got = append(got, describe(f))
	}
	want := []string{
		// The bare in-Region id: Bedrock's 10 % regional premium (catalog
		// right); the global profile agrees.
		"price bedrock-claude-sonnet-4-6-regional [anthropic.claude-sonnet-4-6] input>0 standard: 3.3 vs 3",
		"price bedrock-claude-sonnet-4-6-regional [anthropic.claude-sonnet-4-6] cache_read>0 standard: 0.33 vs 0.3",
		"price bedrock-claude-sonnet-4-6-regional [anthropic.claude-sonnet-4-6] cache_write>0 standard: 4.125 vs 3.75",
		"price bedrock-claude-sonnet-4-6-regional [anthropic.claude-sonnet-4-6] output>0 standard: 16.5 vs 15",
		// Opus 4.1's 15 / 75 with the premium, on Opus 4.6 (the peer is wrong).
		"price bedrock-claude-opus-4-6-regional [au.anthropic.claude-opus-4-6-v1] input>0 standard: 5.5 vs 16.5",
		"price bedrock-claude-opus-4-6-regional [au.anthropic.claude-opus-4-6-v1] cache_read>0 standard: 0.55 vs 1.65",
		"price bedrock-claude-opus-4-6-regional [au.anthropic.claude-opus-4-6-v1] cache_write>0 standard: 6.875 vs 20.625",
		"price bedrock-claude-opus-4-6-regional [au.anthropic.claude-opus-4-6-v1] output>0 standard: 27.5 vs 82.5",
		// GitHub's free quota against its paid usage (catalog right).
		"price github-gpt-4o [openai/gpt-4o] input>0 standard: 2.5 vs 0",
		"price github-gpt-4o [openai/gpt-4o] output>0 standard: 10 vs 0",
		// Together's reported cut, not on its page (open).
		"price together-deepseek-v4-pro [deepseek-ai/DeepSeek-V4-Pro] input>0 standard: 2.1 vs 1.74",
		"price together-deepseek-v4-pro [deepseek-ai/DeepSeek-V4-Pro] output>0 standard: 4.4 vs 3.48",
		// OpenRouter's Gemini cache write: input plus storage (open).
		"price openrouter-gemini-2.5-pro [google/gemini-2.5-pro] cache_write>0 standard: 1.25 vs 1.625",
	}
	slices.Sort(got)
	slices.Sort(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
