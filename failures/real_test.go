package failures

import (
	"testing"
	"time"

	"github.com/tokenfare/tokenfare/ledger"
)

// realDir holds what a real CLIProxyAPI v7.2.99 wrote for calls to a
// local upstream that failed on purpose (testdata/cliproxy-real/README.md).
const realDir = "../../testdata/cliproxy-real/failures/"

func TestRealCLIProxySingleKeyEpisode(t *testing.T) {
	cfg := &Config{Gateway: ledger.CLIProxy, Pools: []Pool{{Name: "claude", Keys: 1, Cooling: true}}}
	res := run(t, realDir+"single-key", time.UTC, cfg, "usage-queue.jsonl")
	// The provider's one 503 (807 ms) has a record; the four 503s the
	// gateway answered in 0-1 ms within the minute have none.
	if got, want := classes(res), [3]int64{1, 4, 0}; got != want {
		t.Errorf("upstream, gateway, unknown = %v, want %v", got, want)
	}
	if res.Access.Failed != 5 || res.Access.Joined != 1 || res.Access.Alone != 4 {
		t.Errorf("access %+v, want 5 failed lines: 1 joined, 4 alone", res.Access)
	}
	if len(res.Episodes) != 1 {
		t.Fatalf("%d episodes, want 1", len(res.Episodes))
	}
	ep := res.Episodes[0]
	if ep.Trigger.RequestID != "53f26a3c" || ep.Trigger.HTTPStatus != 503 || ep.Refused != 4 ||
		ep.First.RequestID != "d22b00a7" || ep.Last.RequestID != "e8920ca8" || ep.Provider != "claude" {
		t.Errorf("episode %+v, want 53f26a3c 503 then 4 refusals d22b00a7..e8920ca8 on claude", ep)
	}
	if single, known := ep.Single(); !single || !known {
		t.Errorf("single %t known %t, want one key", single, known)
	}
}

func TestRealCLIProxyTwoKeyRotation(t *testing.T) {
	res := run(t, realDir+"two-keys", time.UTC, nil, "usage-queue.jsonl")
	// Key 1's 503 was retried on key 2 in the same request (540c91e3):
	// the client saw 200, and key 2 served every request after.
	if got, want := classes(res), [3]int64{1, 0, 0}; got != want {
		t.Errorf("upstream, gateway, unknown = %v, want %v", got, want)
	}
	if len(res.Episodes) != 0 || res.Access.Failed != 0 {
		t.Errorf("episodes %+v, access %+v; want none", res.Episodes, res.Access)
	}
}

// TestRealCLIProxyLogAlone: with usage statistics off (CLIProxyAPI's
// default) there are no records; the log's upstream-failure line and
// request lines still tell the episode.
func TestRealCLIProxyLogAlone(t *testing.T) {
	res := run(t, realDir+"single-key", time.UTC, nil)
	if got, want := classes(res), [3]int64{1, 4, 0}; got != want {
		t.Errorf("upstream, gateway, unknown = %v, want %v", got, want)
	}
	if res.Access.Upstream != 1 || res.Access.Joined != 1 || res.Access.Alone != 4 {
		t.Errorf("access %+v, want 1 upstream line, its request line joined to it, 4 alone", res.Access)
	}
	if len(res.Episodes) != 1 {
		t.Fatalf("%d episodes, want 1", len(res.Episodes))
	}
	ep := res.Episodes[0]
	tr := ep.Trigger
	// [2026-12-01 15:15:17] … duration=806ms: the attempt ended at 15:15:17
	// (to the second) and took 806 ms.
	if tr.RequestID != "53f26a3c" || tr.HTTPStatus != 503 || tr.Latency() != 806*time.Millisecond || tr.Route != "POST /v1/messages" ||
		ep.Provider != "claude" || ep.ModelGroup != "claude-sonnet-4-5-20250929" || ep.Refused != 4 || tr.Deployment != "api_key=sk-a...0001" {
		t.Errorf("episode %+v", ep)
	}
}
