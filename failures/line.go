package failures

import (
	"strings"
	"time"

	"github.com/tokenfare/tokenfare/ledger"
)

// line is what the analysis keeps of a failed access-log line: the
// fields a join, a class and an episode need, and no string that holds
// the log's text (the parser's strings share the whole line's bytes).
type line struct {
	kind       ledger.AccessKind
	id         string
	start, end time.Time
	latency    time.Duration
	status     int
	// route is a request line's "METHOD /path"; an upstream-failure
	// line's is its request line's, "" until one is read.
	route  string
	client string
	// Upstream-failure lines: provider, model, credential and text.
	provider, model, auth, text string
}

// maxInterned bounds the strings shared between lines: routes, clients,
// providers and models repeat; past the bound each is copied instead.
const maxInterned = 4096

// interner shares the repeated strings of the kept lines.
type interner map[string]string

// of returns s, shared with an equal string kept before when there is
// one, else a copy of it.
func (in interner) of(s string) string {
	if s == "" {
		return ""
	}
	if t, ok := in[s]; ok {
		return t
	}
	t := strings.Clone(s)
	if len(in) < maxInterned {
		in[t] = t
	}
	return t
}

// keep returns the compact copy of access line l.
func (in interner) keep(l *ledger.AccessLine) *line {
	c := &line{kind: l.Kind, id: strings.Clone(l.RequestID), start: l.Start, end: l.End, latency: l.Latency,
		status: l.Status, client: in.of(l.Client)}
	if l.Kind == ledger.AccessUpstreamFailure {
		c.provider, c.model, c.auth, c.text = in.of(l.Provider), in.of(l.Model), in.of(l.Auth), strings.Clone(l.Text)
		c.route = in.of(routeOf(l))
		return c
	}
	c.route = in.of(l.Route())
	return c
}

// tell gives upstream-failure line u the route of its request's line
// (and, for a failed one, its status: the answer the client had).
func (u *line) tell(l *ledger.AccessLine, in interner, failed bool) {
	u.route = in.of(routeOf(l))
	if failed {
		u.status = l.Status
	}
}

// aloneEvent is the failure a request line no record tells stands for:
// its latency is the evidence.
func aloneEvent(l *line, fast time.Duration) event {
	class, reason := classifyLatency(l.latency, l.status, fast)
	return event{class: class, reason: reason, gateway: ledger.CLIProxy,
		fail: Failure{RequestID: l.id, Start: l.start, End: l.end, HTTPStatus: l.status, Route: l.route,
			Client: l.client, Evidence: ByLatency}}
}

// upstreamEvent is the upstream failure an upstream-failure line no
// record tells stands for.
func upstreamEvent(l *line) event {
	return event{class: Upstream, reason: upstreamReason(l.status), gateway: ledger.CLIProxy,
		provider: l.provider, group: l.model, fail: Failure{RequestID: l.id, Start: l.start, End: l.end,
			HTTPStatus: l.status, Text: l.text, Route: l.route, Deployment: l.auth, Evidence: ByLogLine}}
}
