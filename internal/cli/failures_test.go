package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tokenfare/tokenfare/gateway/cliproxy"
	"github.com/tokenfare/tokenfare/internal/pgtest"
)

const failuresData = "../../failures/testdata/"

// TestFailuresCommand runs the command on rows as the gateways write
// them (failures/testdata/README.md), through the real command tree.
func TestFailuresCommand(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		classes  [3]int64 // upstream, gateway, unknown
		episodes int
		single   bool // the first episode's pool is one key or deployment
		billed   string
		stderr   string
	}{
		{name: "single-key CLIProxyAPI provider, access log and config",
			args: []string{"--calls", failuresData + "cliproxy-single-key/usage.jsonl", "--access-log", failuresData + "cliproxy-single-key/main.log",
				"--log-tz", "Asia/Shanghai", "--config", failuresData + "cliproxy-single-key/config.yaml"},
			classes: [3]int64{1, 5, 0}, episodes: 1, single: true, billed: "0",
			stderr: "main.log: cliproxy-access-log: 8 request line(s), 0 upstream failure line(s), 1 other log line(s), 0 rejected"},
		{name: "two-key rotation",
			args:    []string{"--calls", failuresData + "cliproxy-two-keys/usage.jsonl", "--access-log", failuresData + "cliproxy-two-keys/main.log", "--config", failuresData + "cliproxy-two-keys/config.yaml"},
			classes: [3]int64{2, 0, 0}, billed: "0"},
		{name: "LiteLLM single-deployment group in cooldown",
			args:    []string{"--calls", failuresData + "litellm-cooldown/spendlogs.json", "--config", failuresData + "litellm-cooldown/config.yaml"},
			classes: [3]int64{1, 3, 0}, episodes: 1, single: true, billed: "0"},
		{name: "real CLIProxyAPI v7.2.99, one key",
			args: []string{"--calls", "../../testdata/cliproxy-real/failures/single-key/usage-queue.jsonl",
				"--access-log", "../../testdata/cliproxy-real/failures/single-key/main.log", "--config", "../../testdata/cliproxy-real/failures/single-key/config.yaml"},
			classes: [3]int64{1, 4, 0}, episodes: 1, single: true, billed: "0"},
		{name: "real CLIProxyAPI v7.2.99, two keys",
			args: []string{"--calls", "../../testdata/cliproxy-real/failures/two-keys/usage-queue.jsonl",
				"--access-log", "../../testdata/cliproxy-real/failures/two-keys/main.log", "--config", "../../testdata/cliproxy-real/failures/two-keys/config.yaml"},
			classes: [3]int64{1, 0, 0}, billed: "0"},
		{name: "real CLIProxyAPI log alone, usage statistics off",
			args:    []string{"--access-log", "../../testdata/cliproxy-real/failures/single-key/main.log", "--config", "../../testdata/cliproxy-real/failures/single-key/config.yaml"},
			classes: [3]int64{1, 4, 0}, episodes: 1, single: true, billed: "0",
			stderr: "1 upstream failure line(s)"},
		{name: "gin lines alone: the slow 503s are upstream by latency",
			args:    []string{"--access-log", failuresData + "cliproxy-gin-only/main.log"},
			classes: [3]int64{2, 4, 0}, episodes: 1, billed: "0"},
		{name: "gin lines alone, --fast-ms above the slow 503s: all the gateway's, no episode",
			args:    []string{"--access-log", failuresData + "cliproxy-gin-only/main.log", "--fast-ms", "2000"},
			classes: [3]int64{0, 6, 0}, billed: "0"},
		{name: "LiteLLM daily cap", args: []string{"--calls", failuresData + "litellm-daily-cap/spendlogs.json"}, classes: [3]int64{0, 2, 0}, billed: "0"},
		{name: "upstream 500 with tokens, billed by its tariff",
			args:    []string{"--calls", failuresData + "cliproxy-500-tokens/usage.jsonl", "--tariffs", failuresData + "tariffs"},
			classes: [3]int64{1, 0, 0}, billed: "0.048"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := runCLI(t, "", append([]string{"failures", "-o", "json"}, tt.args...)...)
			if code != 0 {
				t.Fatalf("exit %d, stderr:\n%s", code, errs)
			}
			var doc struct {
				Totals struct {
					Failed struct{ Upstream, Gateway, Unknown int64 }
					Billed string
				}
				Episodes []struct {
					Config *struct{ Single bool }
				}
			}
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			f := doc.Totals.Failed
			if got := [3]int64{f.Upstream, f.Gateway, f.Unknown}; got != tt.classes {
				t.Errorf("upstream, gateway, unknown = %v, want %v", got, tt.classes)
			}
			if len(doc.Episodes) != tt.episodes {
				t.Fatalf("%d episodes, want %d", len(doc.Episodes), tt.episodes)
			}
			if tt.episodes > 0 && tt.single && (doc.Episodes[0].Config == nil || !doc.Episodes[0].Config.Single) {
				t.Errorf("episode config %+v, want single %t", doc.Episodes[0].Config, tt.single)
			}
			if doc.Totals.Billed != tt.billed {
				t.Errorf("billed %s, want %s", doc.Totals.Billed, tt.billed)
			}
			if !strings.Contains(errs, tt.stderr) {
				t.Errorf("stderr %q, want %q in it", errs, tt.stderr)
			}
		})
	}
}

func TestFailuresTableNamesTheCheckRule(t *testing.T) {
	code, out, errs := runCLI(t, "", "failures", "--calls", failuresData+"cliproxy-single-key/usage.jsonl",
		"--access-log", failuresData+"cliproxy-single-key/main.log", "--log-tz", "Asia/Shanghai",
		"--config", failuresData+"cliproxy-single-key/config.yaml")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"failed    6: upstream 1, gateway 5, unknown 0", "a1b2c3d4 503 in 812ms", "1 key",
		"check rule single-key-cooling", "no_credential 4"} {
		checkContains(t, "stdout", out, want)
	}
}

func TestFailuresTableShowsTheLatencySplit(t *testing.T) {
	code, out, errs := runCLI(t, "", "failures", "--access-log", failuresData+"cliproxy-gin-only/main.log")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"failed    6: upstream 2 (2 by latency alone), gateway 4, unknown 0",
		"POST /v1/chat/completions split at 100ms (--fast-ms): 4 fast 1ms-6ms (gateway), 2 slow 316ms-1.84s (upstream, by latency)",
		"5e0c0a02 503 in 316ms (by latency)", "2 failed line(s) of the management API (no model call, not counted)"} {
		checkContains(t, "stdout", out, want)
	}
}

func TestFailuresCausesEachTheirAdvice(t *testing.T) {
	log := filepath.Join(t.TempDir(), "main.log")
	lines := "[2026-10-14 09:12:03] [6a000001] [warn ] [gin_logger.go:95] 410 |         402ms |       127.0.0.1 | POST    \"/v1/messages\"\n" +
		"[2026-10-14 09:13:03] [6a000002] [warn ] [gin_logger.go:95] 429 |         388ms |       127.0.0.1 | POST    \"/v1/messages\"\n" +
		"[2026-10-14 09:14:03] [6a000003] [warn ] [gin_logger.go:95] 401 |         371ms |       127.0.0.1 | POST    \"/v1/messages\"\n"
	if err := os.WriteFile(log, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI(t, "", "failures", "-o", "json", "--access-log", log)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Causes []struct{ Class, Reason, Advice string }
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	want := []struct{ reason, advice string }{{"retired", "end of life"}, {"quota", "quota"}, {"credential", "refused the gateway's key"}}
	if len(doc.Causes) != len(want) {
		t.Fatalf("causes %+v, want %d", doc.Causes, len(want))
	}
	for i, w := range want {
		c := doc.Causes[i]
		if c.Class != "upstream" || c.Reason != w.reason || !strings.Contains(c.Advice, w.advice) {
			t.Errorf("cause %d = %+v, want upstream %s saying %q", i, c, w.reason, w.advice)
		}
	}
}

func TestFailuresLiteLLMRejectionsAndHours(t *testing.T) {
	code, out, errs := runCLI(t, "", "failures", "-o", "json", "--calls", failuresData+"litellm-cooldown/spendlogs.json",
		"--config", failuresData+"litellm-cooldown/config.yaml")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Rejections []struct {
			ModelGroup string `json:"model_group"`
			Reason     string
			Calls      int64
			Cause      string
		}
		Hours []struct {
			Hour               string
			Requests, Rejected int64
			Share              float64 `json:"rejected_share"`
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Rejections) != 1 || doc.Rejections[0].ModelGroup != "gpt-4o" || doc.Rejections[0].Reason != "cooldown" || doc.Rejections[0].Calls != 3 ||
		!strings.Contains(doc.Rejections[0].Cause, "single-deployment group") || !strings.Contains(doc.Rejections[0].Cause, "allowed_fails 1, cooldown_time 5s") {
		t.Errorf("rejections %+v, want gpt-4o cooldown 3, a single-deployment group with allowed_fails 1, cooldown_time 5s", doc.Rejections)
	}
	// Six rows in the hour, three refused.
	if len(doc.Hours) != 1 || doc.Hours[0].Hour != "2026-10-01T08:00:00Z" || doc.Hours[0].Requests != 6 || doc.Hours[0].Rejected != 3 || doc.Hours[0].Share != 0.5 {
		t.Errorf("hours %+v, want 08:00 3 of 6, 0.5", doc.Hours)
	}
}

func TestFailuresBadUsage(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"access log that matches nothing", []string{"--calls", failuresData + "litellm-daily-cap/spendlogs.json", "--access-log", "no-such.log"}, "no such file"},
		{"fast threshold of zero", []string{"--access-log", failuresData + "cliproxy-gin-only/main.log", "--fast-ms", "0"}, "--fast-ms 0"},
		{"bad output", []string{"--calls", failuresData + "litellm-daily-cap/spendlogs.json", "-o", "yaml"}, "yaml"},
		{"config that is no config", []string{"--calls", failuresData + "litellm-daily-cap/spendlogs.json", "--config", failuresData + "litellm-daily-cap/spendlogs.json"}, "read config"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errs := runCLI(t, "", append([]string{"failures"}, tt.args...)...)
			if code != 2 || !strings.Contains(errs, tt.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, errs, tt.want)
			}
		})
	}
}

func TestFailuresWindowBoundsTheAccessLog(t *testing.T) {
	// The single-key log's refusals end 06:03:06 to 06:05:30 UTC; the
	// window keeps the first two only.
	code, out, errs := runCLI(t, "", "failures", "-o", "json", "--since", "2026-08-22T06:03:00Z", "--until", "2026-08-22T06:03:10Z",
		"--calls", failuresData+"cliproxy-single-key/usage.jsonl", "--access-log", failuresData+"cliproxy-single-key/main.log", "--log-tz", "Asia/Shanghai")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Access struct{ Alone, Outside, Joined int64 }
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Access.Alone != 2 || doc.Access.Outside != 3 || doc.Access.Joined != 1 {
		t.Errorf("access %+v, want 2 alone, 3 outside, 1 joined", doc.Access)
	}
}

// TestFailuresDBEqualsCalls: the failed rows of LiteLLM's table read
// from the database carry the same error detail as its dump.
func TestFailuresDBEqualsCalls(t *testing.T) {
	db := pgtest.NewLiteLLM(t, pgtest.SchemaCurrent)
	db.LoadDump(t, sampleDump)
	export := db.Export(t)
	_, want, errs := runCLI(t, "", "failures", "-o", "json", "--calls", export)
	if !strings.Contains(want, `"upstream"`) {
		t.Fatalf("--calls: %s %s", want, errs)
	}
	code, got, errs := runCLI(t, "", "failures", "-o", "json", "--db", db.URL)
	if code != 0 {
		t.Fatalf("--db: exit %d: %s", code, errs)
	}
	if got != want {
		t.Errorf("--db differs from --calls:\n%s", firstLineDiff(got, want))
	}
}

// TestFailuresFixAgreesWithCheck: on one CLIProxyAPI config, check's
// single-key-cooling finding and the fix failures gives the episodes of
// the request lines alone say the same change, once for the provider.
func TestFailuresFixAgreesWithCheck(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "cliproxy.yaml")
	body := "api-keys: [sk-client-1]\nclaude-api-key:\n  - api-key: sk-ant-1\nopenai-compatibility:\n  - name: deepseek\n    api-key-entries: [{api-key: sk-ds-1}, {api-key: sk-ds-2}]\n"
	if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	fix := cliproxy.SingleKeyFix("claude", "claude-api-key[0].disable-cooling")
	code, out, errs := runCLI(t, "", "check", "--config", cfg)
	if code != exitFindings || !strings.Contains(out+errs, fix) || !strings.Contains(out+errs, "single-key-cooling") {
		t.Errorf("check: exit %d, output %s%s; want finding single-key-cooling saying %q", code, out, errs, fix)
	}
	code, out, errs = runCLI(t, "", "failures", "--access-log", failuresData+"cliproxy-gin-only/main.log", "--config", cfg)
	if code != 0 {
		t.Fatalf("failures: exit %d: %s", code, errs)
	}
	if n := strings.Count(out, fix); n != 1 {
		t.Errorf("failures says the fix %d times, want once:\n%s", n, out)
	}
	for _, want := range []string{"check rule single-key-cooling", "the log names no provider: the config's only one that holds one key with cooling on"} {
		checkContains(t, "stdout", out, want)
	}
}
