package failures

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tokenfare/tokenfare/ledger"
)

// historyEpisode is one episode written into a generated history.
type historyEpisode struct {
	at       string // the trigger's end, local wall time
	provider string // named by the trigger's upstream-failure line
	refusals []int  // seconds after the trigger at which a fast 503 came
}

// history are five episodes on five dates, three on claude and two on
// deepseek; the refusals 1 s and then 3 s after a failure are a client's
// retries (7 in all).
var history = []historyEpisode{
	{"2026-10-03 10:15:07", "claude", []int{1, 4, 30}},           // retried 2
	{"2026-10-09 16:40:51", "deepseek", []int{1, 2, 25, 50, 58}}, // retried 2 (the 2 s one is 1 s after the first)
	{"2026-10-17 09:02:33", "claude", []int{20}},                 // retried 0
	{"2026-10-22 14:30:00", "deepseek", []int{3, 40}},            // retried 1
	{"2026-11-02 23:59:10", "claude", []int{1, 12}},              // retried 1: the episode began on 11-02
}

// genHistory writes a CLIProxyAPI log of n ordinary requests a minute
// apart from 2026-10-01, the history's episodes among them; with warn,
// each trigger's upstream-failure line too. The ordinary lines are
// successes of 0.3 to 5 s, the management API's polls (one answering 404,
// one 401 every so often) and a slow 400 now and then.
func genHistory(n int, warn bool) string {
	var b strings.Builder
	t0 := time.Date(2026, 10, 1, 0, 0, 30, 0, time.UTC)
	ep := 0
	for i := 0; i < n; i++ {
		at := t0.Add(time.Duration(i) * 17 * time.Minute)
		for ep < len(history) && !history[ep].trigger().After(at) {
			b.WriteString(history[ep].lines(ep, warn))
			ep++
		}
		stamp := at.Format(time.DateTime)
		id := fmt.Sprintf("%08x", 0x10000000+i)
		switch {
		case i%97 == 0:
			b.WriteString(managementLine(stamp, 404, "/v0/management/usage"))
		case i%89 == 0:
			b.WriteString(managementLine(stamp, 401, "/v0/management/usage-queue?count=100"))
		case i%61 == 0:
			b.WriteString(ginLine(stamp, id, 400, fmt.Sprintf("%dms", 200+i%300), "/v1/chat/completions"))
		default:
			b.WriteString(ginLine(stamp, id, 200, fmt.Sprintf("%dms", 300+(i*37)%4700), "/v1/chat/completions"))
		}
	}
	return b.String()
}

func (h historyEpisode) trigger() time.Time {
	t, err := time.Parse(time.DateTime, h.at)
	if err != nil {
		panic(err)
	}
	return t
}

// lines are the episode's trigger (a slow 503 and, with warn, its
// upstream-failure line) and its fast refusals.
func (h historyEpisode) lines(n int, warn bool) string {
	var b strings.Builder
	id := fmt.Sprintf("e%d000000", n)
	if warn {
		fmt.Fprintf(&b, "[%s] [%s] [warn ] [conductor_execution.go:1602] upstream execution failed: provider=%s model=m-%s auth=api_key=sk-x...0001 duration=611ms err={\"error\":{\"message\":\"overloaded\"}}\n",
			h.at, id, h.provider, h.provider)
	}
	b.WriteString(ginLine(h.at, id, 503, "612ms", "/v1/chat/completions"))
	for i, s := range h.refusals {
		at := h.trigger().Add(time.Duration(s) * time.Second).Format(time.DateTime)
		b.WriteString(ginLine(at, fmt.Sprintf("e%d00000%d", n, i+1), 503, fmt.Sprintf("%dms", 1+i%6), "/v1/chat/completions"))
	}
	return b.String()
}

// managementLine is a request to the management API: no request id.
func managementLine(at string, status int, path string) string {
	return fmt.Sprintf("[%s] [--------] [warn ] [gin_logger.go:95] %3d | %13s | %15s | %-7s \"%s\"\n", at, status, "1ms", "127.0.0.1", "GET", path)
}

// TestHistoryEpisodesByDate: five episodes on five dates among three
// thousand ordinary lines give five episodes by date and one fix per
// provider, not one per episode.
func TestHistoryEpisodesByDate(t *testing.T) {
	cfg := &Config{File: "config.yaml", Gateway: ledger.CLIProxy, Rule: "single-key-cooling", Pools: []Pool{
		{Name: "claude", Keys: 1, Cooling: true, Line: 20, Field: "claude-api-key", CoolingField: "claude-api-key[0].disable-cooling"},
		{Name: "deepseek", Keys: 1, Cooling: true, Line: 31, Field: "openai-compatibility[0]", CoolingField: "openai-compatibility[0].disable-cooling"},
	}}
	tests := []struct {
		name  string
		warn  bool // the log holds the triggers' upstream-failure lines
		fixes []Fix
	}{
		{"upstream lines name the providers", true, []Fix{
			{Gateway: ledger.CLIProxy, Name: "claude", Pool: &cfg.Pools[0], Episodes: 3, Refused: 6, Action: ActionDisableCooling},
			{Gateway: ledger.CLIProxy, Name: "deepseek", Pool: &cfg.Pools[1], Episodes: 2, Refused: 7, Action: ActionDisableCooling},
		}},
		{"request lines alone: two single-key providers could be it", false, []Fix{
			{Gateway: ledger.CLIProxy, Candidates: []string{"claude", "deepseek"}, Episodes: 5, Refused: 13, Action: ActionNoPool},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := fromLog(t, genHistory(3000, tt.warn), Options{Config: cfg})
			if len(res.Episodes) != len(history) {
				t.Fatalf("%d episodes, want %d", len(res.Episodes), len(history))
			}
			checkDays(t, res.ByDate())
			// Of 3000 lines, i a multiple of 97 (31) is a management poll
			// answered 404, of 89 but not 97 (33) one answered 401: no
			// model call. A multiple of 61 and of neither (49) is a slow
			// 400, upstream by latency, as the five triggers are; the
			// gateway refused the episodes' 13 requests.
			if res.Access.Management != 64 {
				t.Errorf("%d management lines, want 64", res.Access.Management)
			}
			if got, want := classes(res), [3]int64{54, 13, 0}; got != want {
				t.Errorf("upstream, gateway, unknown = %v, want %v", got, want)
			}
			fixes := res.Fixes()
			if len(fixes) != len(tt.fixes) {
				t.Fatalf("fixes %+v, want %+v", fixes, tt.fixes)
			}
			for i, w := range tt.fixes {
				f := fixes[i]
				if f.Name != w.Name || f.Pool != w.Pool || f.Episodes != w.Episodes || f.Refused != w.Refused || f.Action != w.Action ||
					strings.Join(f.Candidates, ",") != strings.Join(w.Candidates, ",") {
					t.Errorf("fix %d = %+v, want %+v", i, f, w)
				}
			}
		})
	}
}

// checkDays compares the episodes by date with the history's.
func checkDays(t *testing.T, days []Day) {
	t.Helper()
	want := []Day{
		{Date: time.Date(2026, 10, 3, 0, 0, 0, 0, time.UTC), Episodes: 1, Refused: 3, Retried: 2},
		{Date: time.Date(2026, 10, 9, 0, 0, 0, 0, time.UTC), Episodes: 1, Refused: 5, Retried: 2},
		{Date: time.Date(2026, 10, 17, 0, 0, 0, 0, time.UTC), Episodes: 1, Refused: 1, Retried: 0},
		{Date: time.Date(2026, 10, 22, 0, 0, 0, 0, time.UTC), Episodes: 1, Refused: 2, Retried: 1},
		{Date: time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC), Episodes: 1, Refused: 2, Retried: 1},
	}
	if len(days) != len(want) {
		t.Fatalf("%d dates, want %d: %+v", len(days), len(want), days)
	}
	for i, w := range want {
		if d := days[i]; !d.Date.Equal(w.Date) || d.Episodes != w.Episodes || d.Refused != w.Refused || d.Retried != w.Retried {
			t.Errorf("date %d = %+v, want %+v", i, d, w)
		}
	}
}
