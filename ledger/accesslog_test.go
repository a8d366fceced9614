package ledger

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// Lines as CLIProxyAPI writes them: LogFormatter.Format
// (internal/logging/global_logger.go) around GinLogrusLogger's message
// (internal/logging/gin_logger.go), router-for-me/CLIProxyAPI@a7e3596b7e.
func TestReadAccessLog(t *testing.T) {
	shanghai, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Fatal(err)
	}
	log := strings.Join([]string{
		`[2026-08-22 14:03:11] [a1b2c3d4] [info ] [gin_logger.go:97] 200 |         6.12s |       127.0.0.1 | POST    "/v1/messages?beta=true"`,
		`[2026-08-22 14:03:15] [9f3e0c21] [error] [gin_logger.go:93] 503 |           6ms |       10.0.0.12 | POST    "/v1/chat/completions"`,
		`[2026-08-22 14:03:16] [--------] [info ] [server.go:210] API server started on 127.0.0.1:8317`,
		``,
		`[2026-08-22 14:03:17] [--------] [warn ] [gin_logger.go:95] 401 |            0s |       127.0.0.1 | GET     "/v1/models" | bad key`,
		`[2026-08-22 14:03:18] [77aa00bb] [warn ] [gin_logger.go:95] 4x9 |          12ms |       127.0.0.1 | POST    "/v1/messages"`,
		`[2026-08-22 14:03:19] [77aa00bc] [warn ] [gin_logger.go:95] 429 |   fast |       127.0.0.1 | POST    "/v1/messages"`,
		`garbage`,
		`[2026-08-22 14:03:20] [77aa00bd] [error] [gin_logger.go:93] 502 |      1m2s |       127.0.0.1 | POST    "/v1/responses" [credits]`,
	}, "\n")
	var got []AccessLine
	rows, err := ReadAccessLog(context.Background(), "main.log", strings.NewReader(log), shanghai, func(a *AccessLine) error {
		got = append(got, *a)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if rows.Requests != 4 || rows.Other != 1 || len(rows.Rejected) != 3 {
		t.Fatalf("rows = %d requests, %d other, %d rejected %v; want 4, 1, 3", rows.Requests, rows.Other, len(rows.Rejected), rows.Rejected)
	}
	tests := []struct {
		name    string
		got     AccessLine
		id      string
		status  int
		latency time.Duration
		route   string
		end     string
	}{
		{"success with a query", got[0], "a1b2c3d4", 200, 6120 * time.Millisecond, "POST /v1/messages", "2026-08-22T06:03:11Z"},
		{"fast refusal", got[1], "9f3e0c21", 503, 6 * time.Millisecond, "POST /v1/chat/completions", "2026-08-22T06:03:15Z"},
		{"no request id, gin errors after the path", got[2], "", 401, 0, "GET /v1/models", "2026-08-22T06:03:17Z"},
		{"credits mark, a latency above a minute", got[3], "77aa00bd", 502, 62 * time.Second, "POST /v1/responses", "2026-08-22T06:03:20Z"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := tc.got
			if a.RequestID != tc.id || a.Status != tc.status || a.Latency != tc.latency || a.Route() != tc.route || a.End.Format(time.RFC3339) != tc.end {
				t.Errorf("got %+v (route %q), want id %q status %d latency %v route %q end %s", a, a.Route(), tc.id, tc.status, tc.latency, tc.route, tc.end)
			}
			if !a.Start.Equal(a.End.Add(-a.Latency)) {
				t.Errorf("start %v is not end less latency", a.Start)
			}
		})
	}
	wantRejected := []struct {
		line   int
		reason string
	}{{6, `status "4x9"`}, {7, `latency "fast"`}, {8, "not a CLIProxyAPI log line"}}
	for i, w := range wantRejected {
		if r := rows.Rejected[i]; r.Line != w.line || !strings.Contains(r.Reason, w.reason) || r.File != "main.log" {
			t.Errorf("rejection %d = %s: %s, want line %d with %q", i, r.Where(), r.Reason, w.line, w.reason)
		}
	}
}

func TestAccessLogGivenAsCalls(t *testing.T) {
	log := `[2026-08-22 14:03:15] [9f3e0c21] [error] [gin_logger.go:93] 503 |           6ms |       10.0.0.12 | POST    "/v1/chat/completions"` + "\n"
	_, err := open(context.Background(), "main.log", strings.NewReader(log), Options{})
	if !errors.Is(err, ErrUnknownFormat) || !strings.Contains(err.Error(), "--access-log") {
		t.Errorf("err = %v, want ErrUnknownFormat pointing at --access-log", err)
	}
}

// An upstream attempt's failure as warnLogUpstreamFailure logs it
// (sdk/cliproxy/auth/conductor_execution.go, router-for-me/CLIProxyAPI@a7e3596b7e).
func TestReadAccessLogUpstreamFailure(t *testing.T) {
	log := `[2026-12-01 15:15:17] [53f26a3c] [warn ] [conductor_execution.go:1602] upstream execution failed: provider=claude model=claude-sonnet-4-5-20250929 auth=api_key=sk-a...0001 duration=806ms err={"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
[2026-12-01 15:15:18] [53f26a3d] [warn ] [conductor_execution.go:1602] upstream execution failed: provider=claude model=m auth=api_key=sk-a...0001 err=x
`
	var got []AccessLine
	rows, err := ReadAccessLog(context.Background(), "main.log", strings.NewReader(log), time.UTC, func(a *AccessLine) error {
		got = append(got, *a)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if rows.Upstream != 1 || len(rows.Rejected) != 1 || !strings.Contains(rows.Rejected[0].Reason, `lacks "duration="`) {
		t.Fatalf("rows %+v, want 1 upstream line and the one without a duration rejected", rows)
	}
	a := got[0]
	if a.Kind != AccessUpstreamFailure || a.RequestID != "53f26a3c" || a.Provider != "claude" || a.Model != "claude-sonnet-4-5-20250929" ||
		a.Auth != "api_key=sk-a...0001" || a.Latency != 806*time.Millisecond || !strings.HasPrefix(a.Text, `{"type": "error"`) ||
		a.End.Format(time.RFC3339) != "2026-12-01T15:15:17Z" {
		t.Errorf("line = %+v", a)
	}
}

// FuzzReadAccessLog: any input is read to its end or stopped with its
// line; every line is a request, another entry, blank or rejected; a
// request line's start is its end less its latency.
func FuzzReadAccessLog(f *testing.F) {
	f.Add([]byte(`[2026-08-22 14:03:11] [a1b2c3d4] [info ] [gin_logger.go:97] 200 |         6.12s |       127.0.0.1 | POST    "/v1/messages?beta=true"` + "\n"))
	f.Add([]byte(`[2026-12-01 15:15:17] [53f26a3c] [warn ] [conductor_execution.go:1602] upstream execution failed: provider=claude model=m auth=a duration=806ms err=x` + "\n"))
	f.Add([]byte("[2026-08-22 14:03:16] [--------] [info ] [server.go:210] started\n\n[x] [y] [z] 1 | 2 | 3 | 4\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		lines := int64(0)
		rows, err := ReadAccessLog(context.Background(), "f.log", bytes.NewReader(data), time.UTC, func(a *AccessLine) error {
			lines++
			if !a.Start.Equal(a.End.Add(-a.Latency)) || a.Latency < 0 {
				t.Errorf("line %d: start %v, end %v, latency %v", a.Line, a.Start, a.End, a.Latency)
			}
			return nil
		})
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("error %v is no *InputError", err)
			}
			return
		}
		if lines != rows.Requests+rows.Upstream {
			t.Errorf("%d lines passed on, rows say %d requests and %d upstream", lines, rows.Requests, rows.Upstream)
		}
	})
}
