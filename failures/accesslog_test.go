package failures

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tokenfare/tokenfare/ledger"
)

// fromLog analyses an access log alone, read in UTC, both as the lines
// come (Options.AccessOnly) and held until the end, and fails unless both
// find the same.
func fromLog(t *testing.T, log string, opts Options) *Result {
	t.Helper()
	opts.AccessOnly = false
	held := readLog(t, log, opts)
	opts.AccessOnly = true
	streamed := readLog(t, log, opts)
	if !reflect.DeepEqual(held, streamed) {
		t.Errorf("as the lines come:\n%+v\nheld to the end:\n%+v", streamed, held)
	}
	return streamed
}

// readLog analyses an access log alone, read in UTC, with opts.
func readLog(t *testing.T, log string, opts Options) *Result {
	t.Helper()
	an := New(opts)
	rows, err := ledger.ReadAccessLog(context.Background(), "main.log", strings.NewReader(log), time.UTC, func(l *ledger.AccessLine) error {
		an.AddAccess(l)
		return nil
	})
	if err != nil || len(rows.Rejected) > 0 {
		t.Fatalf("access log: %v %v", err, rows.Rejected)
	}
	return an.Result()
}

// ginLine is one request line as CLIProxyAPI's GinLogrusLogger writes it
// (`%3d | %13v | %15s | %-7s "%s"` after the prefix).
func ginLine(at, id string, status int, latency, path string) string {
	level, caller := "info ", "gin_logger.go:97"
	if status >= 500 {
		level, caller = "error", "gin_logger.go:93"
	} else if status >= 400 {
		level, caller = "warn ", "gin_logger.go:95"
	}
	return fmt.Sprintf("[%s] [%s] [%s] [%s] %3d | %13s | %15s | %-7s \"%s\"\n", at, id, level, caller, status, latency, "127.0.0.1", "POST", path)
}

// TestOperatorPatternFromGinLinesAlone reads the pattern an operator
// reported, as the access log writes it (testdata/cliproxy-gin-only): a
// 503 that reached the vendor (316 ms), then four 503s the gateway
// answered itself in 1-6 ms inside the minute (the first two a client's
// 1 s and 3 s backoff), later a lone slow 503 (1.84 s).
func TestOperatorPatternFromGinLinesAlone(t *testing.T) {
	data, err := os.ReadFile("testdata/cliproxy-gin-only/main.log")
	if err != nil {
		t.Fatal(err)
	}
	res := fromLog(t, string(data), Options{})
	if got, want := classes(res), [3]int64{2, 4, 0}; got != want {
		t.Errorf("upstream, gateway, unknown = %v, want %v", got, want)
	}
	if res.Access.Management != 2 {
		t.Errorf("%d management lines, want 2: polls answered 404 and 401 are no model call", res.Access.Management)
	}
	if res.Total.UpstreamByLatency != 2 {
		t.Errorf("%d upstream by latency, want 2: no record or upstream line proves them", res.Total.UpstreamByLatency)
	}
	if len(res.Splits) != 1 {
		t.Fatalf("splits %+v, want one route", res.Splits)
	}
	sp := res.Splits[0]
	if sp.Route != "POST /v1/chat/completions" || sp.Fast != (Span{4, time.Millisecond, 6 * time.Millisecond}) ||
		sp.Slow != (Span{2, 316 * time.Millisecond, 1840 * time.Millisecond}) {
		t.Errorf("split %+v, want 4 fast 1-6ms, 2 slow 316ms-1.84s", sp)
	}
	if len(res.Episodes) != 1 {
		t.Fatalf("%d episodes, want 1: %+v", len(res.Episodes), res.Episodes)
	}
	ep := res.Episodes[0]
	checks := []struct {
		name      string
		got, want any
	}{
		{"trigger", ep.Trigger.RequestID, "5e0c0a02"},
		{"trigger status", ep.Trigger.HTTPStatus, 503},
		{"trigger latency", ep.Trigger.Latency(), 316 * time.Millisecond},
		{"trigger evidence", ep.Trigger.Evidence, ByLatency},
		{"trigger start", ep.Start().Format(time.RFC3339Nano), "2026-10-14T09:12:02.684Z"},
		{"refused", ep.Refused, int64(4)},
		{"first refusal", ep.First.RequestID, "5e0c0a03"},
		{"last refusal", ep.Last.RequestID, "5e0c0a06"},
		{"end", ep.End().Format(time.RFC3339), "2026-10-14T09:12:58Z"},
		{"cooldown", ep.Cooldown, time.Minute},
		{"refusal latency", ep.RefusalLatency, Span{4, time.Millisecond, 6 * time.Millisecond}},
		// 09:12:04 less 6 ms to 09:12:58.
		{"span", ep.Span(), 54*time.Second + 6*time.Millisecond},
		// 1 s after the trigger, then 3 s after that refusal: a client's
		// backoff; the refusals 24 s and 27 s later are new requests.
		{"retried", ep.Retried, int64(2)},
		{"provider: the log names none", ep.Provider, ""},
		{"no config, no pool", ep.Pool == nil, true},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

// withoutWarnLines drops the upstream-failure lines (warn level) from a
// log, as a server logging at error level, or one whose warn lines were
// filtered out, writes it.
func withoutWarnLines(log string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(log, "\n") {
		if !strings.Contains(l, "upstream execution failed") {
			b.WriteString(l)
		}
	}
	return b.String()
}

func TestRealCLIProxyGinLinesAloneGiveTheSameEpisode(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", realDir, "single-key", "main.log"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := &Config{Gateway: ledger.CLIProxy, Pools: []Pool{{Name: "claude", Keys: 1, Cooling: true, Line: 19, Field: "claude-api-key"}}}
	with := fromLog(t, string(data), Options{Config: cfg})
	gin := withoutWarnLines(string(data))
	if gin == string(data) {
		t.Fatal("the real log holds no upstream failure line: nothing is tested")
	}
	alone := fromLog(t, gin, Options{Config: cfg})
	if len(with.Episodes) != 1 || len(alone.Episodes) != 1 {
		t.Fatalf("episodes: %d with the warn lines, %d without; want 1 and 1", len(with.Episodes), len(alone.Episodes))
	}
	w, a := with.Episodes[0], alone.Episodes[0]
	checks := []struct {
		name      string
		got, want any
	}{
		{"trigger", a.Trigger.RequestID, w.Trigger.RequestID},
		{"trigger status", a.Trigger.HTTPStatus, w.Trigger.HTTPStatus},
		{"refused", a.Refused, w.Refused},
		{"first refusal", a.First.RequestID, w.First.RequestID},
		{"last refusal", a.Last.RequestID, w.Last.RequestID},
		{"end", a.End(), w.End()},
		{"refusal latency", a.RefusalLatency, w.RefusalLatency},
		{"retried", a.Retried, w.Retried},
		{"provider", a.Provider, w.Provider},
		{"pool", a.Pool, w.Pool},
		{"classes", classes(alone), classes(with)},
		// What differs: the evidence, and the model only the warn line names.
		{"evidence with", w.Trigger.Evidence, ByLogLine},
		{"evidence without", a.Trigger.Evidence, ByLatency},
		{"pool by elimination", a.ByElimination, true},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	// The request line says 807 ms, the attempt's line 806 ms: the
	// trigger's start differs by that millisecond.
	if d := a.Start().Sub(w.Start()).Abs(); d > time.Millisecond {
		t.Errorf("trigger start %s without, %s with: %s apart", a.Start(), w.Start(), d)
	}
}

// TestCausesThatNoRetryMends: slow failed lines are upstream, each cause
// its own reason; a 5xx is a real upstream failure, the others are not
// passing faults.
func TestCausesThatNoRetryMends(t *testing.T) {
	tests := []struct {
		name   string
		status int
		reason Reason
	}{
		{"410: a model at its end of life", 410, ReasonRetired},
		{"429: the provider's quota", 429, ReasonQuota},
		{"401: the provider refused the key", 401, ReasonCredential},
		{"403: the provider refused the account", 403, ReasonCredential},
		{"502: a real upstream failure", 502, ReasonProvider},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := fromLog(t, ginLine("2026-10-14 09:12:03", "6a000001", tt.status, "402ms", "/v1/messages"), Options{})
			rs := res.Total.Reasons()
			if len(rs) != 1 || rs[0] != (ReasonCount{tt.reason, 1}) || rs[0].Reason.Class() != Upstream {
				t.Errorf("reasons %+v, want %s 1, upstream", rs, tt.reason)
			}
		})
	}
}
