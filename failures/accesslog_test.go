package failures

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tokenfare/tokenfare/ledger"
)

// fromLog analyses an access log alone, read in UTC.
func fromLog(t *testing.T, log string, opts Options) *Result {
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

// operatorLog is the pattern an operator reported, as the access log
// writes it: a 503 that reached the vendor (316 ms), then four 503s the
// gateway answered itself in 1-6 ms inside the minute (the first two a
// client's 1 s and 3 s backoff), later a lone slow 503.
var operatorLog = ginLine("2026-10-14 09:11:50", "5e0c0a01", 200, "2.41s", "/v1/chat/completions") +
	ginLine("2026-10-14 09:12:03", "5e0c0a02", 503, "316ms", "/v1/chat/completions") +
	ginLine("2026-10-14 09:12:04", "5e0c0a03", 503, "6ms", "/v1/chat/completions") +
	ginLine("2026-10-14 09:12:07", "5e0c0a04", 503, "2ms", "/v1/chat/completions") +
	ginLine("2026-10-14 09:12:31", "5e0c0a05", 503, "1ms", "/v1/chat/completions") +
	ginLine("2026-10-14 09:12:58", "5e0c0a06", 503, "2ms", "/v1/chat/completions") +
	ginLine("2026-10-14 09:13:20", "5e0c0a07", 200, "1.97s", "/v1/chat/completions") +
	ginLine("2026-10-14 09:40:12", "5e0c0a08", 503, "1.84s", "/v1/chat/completions") +
	ginLine("2026-10-14 09:40:30", "5e0c0a09", 200, "2.2s", "/v1/chat/completions")

func TestOperatorPatternFromGinLinesAlone(t *testing.T) {
	res := fromLog(t, operatorLog, Options{})
	if got, want := classes(res), [3]int64{2, 4, 0}; got != want {
		t.Errorf("upstream, gateway, unknown = %v, want %v", got, want)
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
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}
