package failures

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

// run feeds the calls of the files under dir (usage records or spend
// logs) and its main.log, if any, through an engine and an analyzer.
func run(t *testing.T, dir string, loc *time.Location, cfg *Config, files ...string) *Result {
	t.Helper()
	cat, ps := tariffs.Load("testdata/tariffs")
	if len(ps.Errors()) > 0 {
		t.Fatal(ps)
	}
	an := New(Options{Config: cfg})
	if f, err := os.Open(filepath.Join("testdata", dir, "main.log")); err == nil {
		rows, err := ledger.ReadAccessLog(context.Background(), "main.log", f, loc, func(l *ledger.AccessLine) error {
			an.AddAccess(l)
			return nil
		})
		f.Close()
		if err != nil || len(rows.Rejected) > 0 {
			t.Fatalf("access log: %v %v", err, rows.Rejected)
		}
	}
	e := pricing.New(cat, pricing.Options{})
	for _, name := range files {
		r, err := ledger.FileSource(filepath.Join("testdata", dir, name), ledger.Options{}).Open(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var b ledger.Batch
		for {
			err := r.Next(context.Background(), &b)
			for _, rej := range b.Rejected {
				t.Errorf("rejected %s: %s", rej.Where(), rej.Reason)
			}
			for i := range b.Calls {
				pc := e.AddPriced(&b.Calls[i])
				if err := an.Observe(&b.Calls[i], &pc); err != nil {
					t.Fatal(err)
				}
			}
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		r.Close()
	}
	return an.Result()
}

func shanghai(t *testing.T) *time.Location {
	loc, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// classes returns the total's failed calls as upstream, gateway, unknown.
func classes(r *Result) [3]int64 {
	return [3]int64{r.Total.Calls[Upstream], r.Total.Calls[Gateway], r.Total.Calls[Unknown]}
}

func TestSingleKeyCLIProxyEpisode(t *testing.T) {
	cfg := &Config{File: "config.yaml", Gateway: ledger.CLIProxy, Rule: "single-key-cooling",
		Pools: []Pool{{Name: "claude", Keys: 1, Cooling: true, Line: 6, Field: "claude-api-key"}}}
	res := run(t, "cliproxy-single-key", shanghai(t), cfg, "usage.jsonl")
	// One slow 503 from the provider (a usage record), then five fast
	// 503s no record shows: four inside the minute's rest, one after it.
	if got, want := classes(res), [3]int64{1, 5, 0}; got != want {
		t.Errorf("upstream, gateway, unknown = %v, want %v", got, want)
	}
	if res.Access.Failed != 6 || res.Access.Joined != 1 || res.Access.Alone != 5 {
		t.Errorf("access = %+v, want 6 failed lines, 1 joined to its record, 5 alone", res.Access)
	}
	if len(res.Episodes) != 1 {
		t.Fatalf("%d episodes, want 1: %+v", len(res.Episodes), res.Episodes)
	}
	ep := res.Episodes[0]
	single, known := ep.Single()
	checks := []struct {
		name      string
		got, want any
	}{
		{"trigger", ep.Trigger.RequestID, "a1b2c3d4"},
		{"trigger status", ep.Trigger.HTTPStatus, 503},
		{"trigger latency", ep.Trigger.Latency(), 812 * time.Millisecond},
		{"refused", ep.Refused, int64(4)},
		{"first refusal", ep.First.RequestID, "b0000001"},
		{"last refusal", ep.Last.RequestID, "b0000004"},
		// 14:03:40 +08:00 less its 5 ms, as the log has it.
		{"end", ep.End().Format(time.RFC3339), "2026-08-22T06:03:40Z"},
		{"start", ep.Start().Format(time.RFC3339Nano), "2026-08-22T06:03:05.102Z"},
		{"provider", ep.Provider, "claude"},
		{"cooldown", ep.Cooldown, time.Minute},
		{"single key known", known, true},
		{"single key", single, true},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

func TestTwoKeyRotationIsNoEpisode(t *testing.T) {
	cfg := &Config{Gateway: ledger.CLIProxy, Pools: []Pool{{Name: "deepseek", Keys: 2, Cooling: true}}}
	res := run(t, "cliproxy-two-keys", time.UTC, cfg, "usage.jsonl")
	if got, want := classes(res), [3]int64{2, 0, 0}; got != want {
		t.Errorf("upstream, gateway, unknown = %v, want %v", got, want)
	}
	if len(res.Episodes) != 0 {
		t.Errorf("episodes %+v, want none: the other key served every request", res.Episodes)
	}
	if res.Access.Failed != 0 {
		t.Errorf("access %+v: every request succeeded for the client", res.Access)
	}
	if len(res.Groups) != 1 || res.Groups[0].Provider != "openai-compatible-deepseek" || res.Groups[0].ModelGroup != "ds-pro" {
		t.Errorf("groups %+v, want one: openai-compatible-deepseek, ds-pro", res.Groups)
	}
}

func TestLiteLLMSingleDeploymentCooldown(t *testing.T) {
	cfg := &Config{Gateway: ledger.LiteLLM, Cooldown: 5 * time.Second, Rule: "cooldown",
		Pools: []Pool{{Name: "gpt-4o", Keys: 1, Cooling: true, Line: 2}}}
	res := run(t, "litellm-cooldown", time.UTC, cfg, "spendlogs.json")
	if got, want := classes(res), [3]int64{1, 3, 0}; got != want {
		t.Errorf("upstream, gateway, unknown = %v, want %v", got, want)
	}
	if len(res.Episodes) != 1 {
		t.Fatalf("%d episodes, want 1", len(res.Episodes))
	}
	ep := res.Episodes[0]
	single, known := ep.Single()
	if ep.Trigger.RequestID != "b1f2c3d4-0001" || ep.Refused != 3 || ep.ModelGroup != "gpt-4o" || !single || !known ||
		ep.Last.RequestID != "b1f2c3d4-0004" {
		t.Errorf("episode %+v, want b1f2c3d4-0001 then 3 refusals on gpt-4o, one deployment", ep)
	}
}

func TestLiteLLMDailyCapIsNoEpisode(t *testing.T) {
	res := run(t, "litellm-daily-cap", time.UTC, nil, "spendlogs.json")
	if got, want := classes(res), [3]int64{0, 2, 0}; got != want {
		t.Errorf("upstream, gateway, unknown = %v, want %v", got, want)
	}
	if len(res.Episodes) != 0 {
		t.Errorf("episodes %+v, want none: a spent budget is no rest after a failure", res.Episodes)
	}
	if rs := res.Groups[0].Reasons(); len(rs) != 1 || rs[0] != (ReasonCount{ReasonBudget, 2}) {
		t.Errorf("reasons %+v, want budget 2", rs)
	}
}

func TestUpstream500WithTokensIsBilled(t *testing.T) {
	res := run(t, "cliproxy-500-tokens", time.UTC, nil, "usage.jsonl")
	if got, want := classes(res), [3]int64{1, 0, 0}; got != want {
		t.Errorf("upstream, gateway, unknown = %v, want %v", got, want)
	}
	// 12,000 input tokens at 2 per million = 0.024; 3,000 output tokens at
	// 8 per million = 0.024; billed in all 0.048. Nothing was recorded:
	// CLIProxyAPI records no spend.
	g := res.Total
	if !g.Billed.Equal(decimal.RequireFromString("0.048")) || g.BilledCalls != 1 || g.Tokens != 15000 || !g.Recorded.IsZero() {
		t.Errorf("billed %s on %d calls, %d tokens, recorded %s; want 0.048 on 1, 15000, 0", g.Billed, g.BilledCalls, g.Tokens, g.Recorded)
	}
}

func TestEpisodeRefusalsCountUnderTheirProvider(t *testing.T) {
	res := run(t, "cliproxy-single-key", shanghai(t), nil, "usage.jsonl")
	want := []struct {
		provider, group, route string
		keyed                  bool
		upstream, gateway      int64
	}{
		// The refusal after the rest names no provider: only its route.
		{"", "", "POST /v1/messages", false, 0, 1},
		// The refusals of the episode count under its provider; the
		// access log names no key.
		{"claude", "claude-sonnet-4-5", "", false, 0, 4},
		{"claude", "claude-sonnet-4-5", "", true, 1, 0},
	}
	if len(res.Groups) != len(want) {
		t.Fatalf("groups %+v, want %d", res.Groups, len(want))
	}
	for i, w := range want {
		g := res.Groups[i]
		if g.Provider != w.provider || g.ModelGroup != w.group || g.Route != w.route || (g.Key != "") != w.keyed ||
			g.Calls[Upstream] != w.upstream || g.Calls[Gateway] != w.gateway {
			t.Errorf("group %d = %+v, want %+v", i, g, w)
		}
	}
	if single, known := res.Episodes[0].Single(); known || single {
		t.Errorf("without a config the pool is unknown, got single %t known %t", single, known)
	}
}
