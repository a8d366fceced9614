package ledger

import (
	"os"
	"testing"

	"github.com/tokenfare/tokenfare/tariffs"
)

// The files of testdata/cliproxy-real are what a CLIProxyAPI built from
// its source wrote for calls sent through it to a local upstream that
// answered with known usage (testdata/cliproxy-real/README.md). The
// tokens wanted below are worked from what the upstream answered, not
// from what CLIProxyAPI wrote: the test fails when a reader mis-counts a
// record as CLIProxyAPI really writes it.

// realWant is what one real record must become.
type realWant struct {
	model, host, status string
	tokens              Tokens
}

// TestCLIProxyRealV7 reads the usage-queue records of CLIProxyAPI
// v7.2.99. Upstream usage per scenario (uncached / read / write / output
// / reasoning, as the buckets of docs/calls.md):
//   - Anthropic: input_tokens 1204, cache_read_input_tokens 30000, output
//     812 → 1204 / 30000 / 0 / 812; cache writes only (input 18,
//     cache_creation 4096, output 250) → 18 / 0 / 4096 / 250; reads and
//     writes (25, 20000, 1500, 995) → 25 / 20000 / 1500 / 995.
//   - Gemini: promptTokenCount 12840 holding cachedContentTokenCount
//     8192, candidates 640, thoughts 1536 apart → 4648 / 8192 / 0 /
//     640+1536 = 2176 / 1536; the long prompt 250000, 900 + 2100 thoughts
//     → 250000 / 0 / 0 / 3000 / 2100.
//   - Responses (codex): input_tokens 24576 holding cached 19968, output
//     1830 holding reasoning 1152 → 4608 / 19968 / 0 / 1830 / 1152.
//   - Chat completions (every openai-compatibility entry): prompt 9000
//     holding cached 6400, completion 1200 holding reasoning 700 → 2600 /
//     6400 / 0 / 1200 / 700; OpenRouter's cache writes (prompt 6000
//     holding cache_write_tokens 5800, completion 150) → 200 / 0 / 5800 /
//     150.
//
// Hosts: claude → anthropic, gemini, codex → openai; each
// openai-compatibility entry (logged "openai-compatible-<name>") is the
// host of its name: openrouter, azure, together → together_ai, deepseek,
// groq.
func TestCLIProxyRealV7(t *testing.T) {
	standard := Tokens{Input: 2600, CacheRead: 6400, Output: 1200, Reasoning: 700}
	gemini := Tokens{Input: 4648, CacheRead: 8192, Output: 2176, Reasoning: 1536}
	codex := Tokens{Input: 4608, CacheRead: 19968, Output: 1830, Reasoning: 1152}
	ok, failed := StatusSuccess.String(), StatusFailure.String()
	// Keyed by request id and status: a retry shares its request's id.
	wants := map[string]realWant{
		"e8f080c4 " + ok:     {"claude-sonnet-4-6", "anthropic", ok, Tokens{Input: 1204, CacheRead: 30000, Output: 812}},
		"f8293c76 " + ok:     {"claude-sonnet-4-6", "anthropic", ok, Tokens{Input: 18, CacheWrite: 4096, Output: 250}}, // streamed
		"43394661 " + ok:     {"claude-sonnet-4-6", "anthropic", ok, Tokens{Input: 25, CacheRead: 20000, CacheWrite: 1500, Output: 995}},
		"d8feb33d " + ok:     {"claude-sonnet-4-6", "anthropic", ok, Tokens{Input: 3100, Output: 420}}, // asked as chat completions
		"9ddfdcaf " + failed: {"claude-sonnet-4-6", "anthropic", failed, Tokens{}},                     // upstream 500
		"fa14c622 " + failed: {"claude-opus-4-7", "anthropic", failed, Tokens{}},                       // upstream 429
		"68187773 " + ok:     {"gemini-3.1-pro-preview", "gemini", ok, gemini},
		"5a915ceb " + ok:     {"gemini-2.5-flash", "gemini", ok, Tokens{Input: 2300, Output: 410}}, // streamed
		"288435fa " + ok:     {"gemini-3.1-pro-preview", "gemini", ok, Tokens{Input: 250000, Output: 3000, Reasoning: 2100}},
		"71f808bd " + failed: {"gemini-3.1-pro-preview", "gemini", failed, Tokens{}},
		"0887e7d9 " + ok:     {"gemini-3.1-pro-preview", "gemini", ok, gemini}, // asked as chat completions
		"ecfc16e3 " + ok:     {"gpt-5.4", "openai", ok, codex},
		"bf31ef74 " + ok:     {"gpt-5.4", "openai", ok, Tokens{Input: 5400, Output: 700, Reasoning: 256}},
		"b2dd7c41 " + ok:     {"gpt-5.4", "openai", ok, codex},
		"da77b43f " + failed: {"gpt-5.4-mini", "openai", failed, Tokens{}},
		"28519f15 " + ok:     {"deepseek/deepseek-v4-pro", "openrouter", ok, standard},
		"d7de56b6 " + ok:     {"anthropic/claude-sonnet-4.6", "openrouter", ok, Tokens{Input: 200, CacheWrite: 5800, Output: 150}},
		"f3623ad9 " + ok:     {"gpt-5.4", "azure", ok, standard}, // the entry named "Azure"
		"56449025 " + ok:     {"deepseek-ai/DeepSeek-V4-Pro", "together_ai", ok, Tokens{Input: 1500, Output: 300}},
		"e2f299d8 " + ok:     {"deepseek-v4-pro", "deepseek", ok, standard},
		"38895cda " + failed: {"deepseek-v4-pro", "deepseek", failed, Tokens{}}, // the entry's first key failed,
		"38895cda " + ok:     {"deepseek-v4-pro", "deepseek", ok, standard},     // its second served the request
		"d0ef0dd4 " + ok:     {"openai/gpt-oss-120b", "groq", ok, Tokens{Input: 1500, Output: 300}},
		"d91606f6 " + ok:     {"deepseek/deepseek-v4-pro", "openrouter", ok, standard}, // streamed
		"201327b5 " + failed: {"deepseek/deepseek-v4-pro", "openrouter", failed, Tokens{}},
		"228b6868 " + ok:     {"anthropic/claude-sonnet-4.6", "openrouter", ok, standard},
		"e3a7bec5 " + ok:     {"google/gemini-3.1-pro-preview", "openrouter", ok, standard},
	}
	// The tier that served the call: response_service_tier, else the one
	// asked ("auto" when none: standard). Asked priority (b2dd7c41) or flex
	// (bf31ef74) of the codex route, the upstream served the default tier;
	// the Azure entry served priority. Anthropic's priority (43394661) is in
	// its usage object, which CLIProxyAPI does not read: standard.
	tiers := map[string]string{"f3623ad9 " + ok: "priority"}
	got := readReal(t, "usage-queue-v7.2.99.jsonl", "cliproxy-v7-records-jsonl")
	checkReal(t, got, wants, tiers, func(c goldenCall) string { return c.RequestID + " " + c.Status })
}

// TestCLIProxyRealV6 reads the usage export of CLIProxyAPI v6.9.49 for
// the same calls. The export names no provider, so the host is empty
// (the first party's own) for a bare model name, as CLIProxyAPI's own
// executors call them, and unknown for a "vendor/model" name, an
// openai-compatibility entry's (a relay the export does not name). It
// carries fewer counts than the upstream sent, so some buckets cannot be
// what was billed:
//   - Anthropic cache writes: v6 logs no write count. A call that only
//     wrote (4096) shows them as cached_tokens, read as cache reads; a call
//     that read 20000 and wrote 1500 shows the 20000 reads alone.
//   - OpenRouter's cache writes (5800 of a 6000-token prompt) are not in
//     the export: all 6000 are uncached input.
//
// A "vendor/model" name is an openai-compatibility entry's: counted the
// OpenAI way (input holds the reads, output the reasoning) even when the
// model is a Claude or a Gemini.
func TestCLIProxyRealV6(t *testing.T) {
	standard := Tokens{Input: 2600, CacheRead: 6400, Output: 1200, Reasoning: 700}
	gemini := Tokens{Input: 4648, CacheRead: 8192, Output: 2176, Reasoning: 1536}
	codex := Tokens{Input: 4608, CacheRead: 19968, Output: 1830, Reasoning: 1152}
	ok, failed := StatusSuccess.String(), StatusFailure.String()
	unknown := tariffs.UnknownHost
	// Keyed by start in UTC: the server wrote its local time, +08:00.
	wants := map[string]realWant{
		"2026-12-01T13:27:56.984637128Z": {"claude-sonnet-4-6", "", ok, Tokens{Input: 1204, CacheRead: 30000, Output: 812}},
		"2026-12-01T13:27:57.34537146Z":  {"claude-sonnet-4-6", "", ok, Tokens{Input: 18, CacheRead: 4096, Output: 250}},  // were writes
		"2026-12-01T13:27:57.717227385Z": {"claude-sonnet-4-6", "", ok, Tokens{Input: 25, CacheRead: 20000, Output: 995}}, // 1500 writes lost
		"2026-12-01T13:27:58.06292289Z":  {"claude-sonnet-4-6", "", ok, Tokens{Input: 3100, Output: 420}},
		"2026-12-01T13:27:58.432073392Z": {"claude-sonnet-4-6", "", failed, Tokens{}},
		"2026-12-01T13:27:58.778502982Z": {"claude-opus-4-7", "", failed, Tokens{}},
		"2026-12-01T13:27:59.131080909Z": {"gemini-3.1-pro-preview", "", ok, gemini},
		"2026-12-01T13:27:59.491366515Z": {"gemini-2.5-flash", "", ok, Tokens{Input: 2300, Output: 410}},
		"2026-12-01T13:27:59.881032039Z": {"gemini-3.1-pro-preview", "", ok, Tokens{Input: 250000, Output: 3000, Reasoning: 2100}},
		"2026-12-01T13:28:00.227977673Z": {"gemini-3.1-pro-preview", "", failed, Tokens{}},
		"2026-12-01T13:28:00.641574926Z": {"gemini-3.1-pro-preview", "", ok, gemini},
		"2026-12-01T13:28:01.001022811Z": {"gpt-5.4", "", ok, codex},
		"2026-12-01T13:28:01.382704278Z": {"gpt-5.4", "", ok, Tokens{Input: 5400, Output: 700, Reasoning: 256}},
		"2026-12-01T13:28:01.796952458Z": {"gpt-5.4", "", ok, codex},
		"2026-12-01T13:28:02.17946895Z":  {"gpt-5.4-mini", "", failed, Tokens{}},
		"2026-12-01T13:28:02.523480917Z": {"deepseek/deepseek-v4-pro", unknown, ok, standard},
		"2026-12-01T13:28:02.883742558Z": {"anthropic/claude-sonnet-4.6", unknown, ok, Tokens{Input: 6000, Output: 150}}, // 5800 writes lost
		"2026-12-01T13:28:03.23272242Z":  {"gpt-5.4", "", ok, standard},                                                  // via the entry named Azure
		"2026-12-01T13:28:03.573593841Z": {"deepseek-ai/DeepSeek-V4-Pro", unknown, ok, Tokens{Input: 1500, Output: 300}},
		"2026-12-01T13:28:03.915181131Z": {"deepseek-v4-pro", "", ok, standard},
		"2026-12-01T13:28:04.268240617Z": {"deepseek-v4-pro", "", failed, Tokens{}},
		"2026-12-01T13:28:04.292086265Z": {"deepseek-v4-pro", "", ok, standard},
		"2026-12-01T13:28:04.777284854Z": {"openai/gpt-oss-120b", unknown, ok, Tokens{Input: 1500, Output: 300}},
		"2026-12-01T13:28:05.110666679Z": {"deepseek/deepseek-v4-pro", unknown, ok, standard},
		"2026-12-01T13:28:05.506815263Z": {"deepseek/deepseek-v4-pro", unknown, failed, Tokens{}},
		"2026-12-01T13:28:32.562239524Z": {"anthropic/claude-sonnet-4.6", unknown, ok, standard},   // reads inside the input
		"2026-12-01T13:28:32.895134669Z": {"google/gemini-3.1-pro-preview", unknown, ok, standard}, // reasoning inside the output
	}
	got := readReal(t, "usage-export-v6.9.49.json", "cliproxy-v6-export")
	checkReal(t, got, wants, nil, func(c goldenCall) string { return c.Start }) // v6 logs no tier
}

func readReal(t *testing.T, name, format string) result {
	t.Helper()
	data, err := os.ReadFile("../testdata/cliproxy-real/" + name)
	if err != nil {
		t.Fatal(err)
	}
	r := readAll(t, name, data, Options{})
	if r.Err != "" {
		t.Fatal(r.Err)
	}
	if r.Format != format {
		t.Errorf("%s read as %s, want %s", name, r.Format, format)
	}
	checkResult(t, r)
	for _, rej := range r.Rejected {
		t.Errorf("rejected %s: %s", rej.Where, rej.Reason)
	}
	return r
}

func checkReal(t *testing.T, r result, wants map[string]realWant, tiers map[string]string, key func(goldenCall) string) {
	t.Helper()
	// Every record is a call: rows, calls and the wanted ones agree.
	if r.Rows != len(wants) || len(r.Calls) != len(wants) {
		t.Errorf("%d rows, %d calls; want %d of each", r.Rows, len(r.Calls), len(wants))
	}
	seen := map[string]bool{}
	for _, c := range r.Calls {
		k := key(c)
		w, found := wants[k]
		if !found || seen[k] {
			t.Errorf("call %s (%s): not wanted, or read twice", k, c.Source)
			continue
		}
		seen[k] = true
		if c.Model != w.model || c.Host != w.host || c.Status != w.status || c.Tokens != goldenTokens(w.tokens) || c.Tier != tiers[k] {
			t.Errorf("%s: %s host %q %s %+v tier %q\nwant %s host %q %s %+v tier %q",
				k, c.Model, c.Host, c.Status, c.Tokens, c.Tier, w.model, w.host, w.status, w.tokens, tiers[k])
		}
		if c.Gateway != CLIProxy || c.Key == "" || c.Key == "sk-client-team-alpha-0001" || c.Key == "sk-client-team-beta-0002" {
			t.Errorf("%s: gateway %v, key %q: want CLIProxyAPI and a hashed key", k, c.Gateway, c.Key)
		}
	}
}
