package reports

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/tokenfare/tokenfare/failures"
	"github.com/tokenfare/tokenfare/gateway/cliproxy"
	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/reports/textout"
)

// FailureReport is what the failures command shows: the run's row
// accounting and what the analysis of its failed calls found.
type FailureReport struct {
	Rows   pricing.Rows
	Result *failures.Result
}

// Failures writes a failure report in format f: table and JSON give the
// groups and the episodes, CSV the groups.
func Failures(w io.Writer, f Format, r *FailureReport) error {
	return writeAs(w, f, "a failure report", r, tableFailures, csvFailures, func(r *FailureReport) any { return newFailuresDoc(r) })
}

func tableFailures(out io.Writer, r *FailureReport) error {
	w := &textout.Writer{W: out}
	res, rows, t := r.Result, r.Rows, &r.Result.Total
	w.Printf("rows      read %d: priced %d, unpriced %d, retired %d, failed %d, duplicate %d, rejected %d, outside %d%s\n",
		rows.Read, rows.Priced, rows.Unpriced, rows.Retired, rows.Failed, rows.Duplicate, rows.Rejected, rows.Outside, cacheHitNote(rows.CacheHit))
	if a := res.Access; a.Failed > 0 || a.Outside > 0 || a.Upstream > 0 || a.Management > 0 {
		w.Printf("access    %d failed request line(s): %d told by usage records or upstream failure lines, %d alone (counted below as failures); %d upstream failure line(s) without a usage record (counted as upstream); %d line(s) outside the window; %d failed line(s) of the management API (no model call, not counted)\n",
			a.Failed, a.Joined, a.Alone, a.Upstream, a.Outside, a.Management)
	}
	w.Printf("failed    %d: upstream %d%s, gateway %d, unknown %d\n", t.Failed(), t.Calls[failures.Upstream], byLatencyNote(t.UpstreamByLatency),
		t.Calls[failures.Gateway], t.Calls[failures.Unknown])
	for i := range res.Splits {
		w.Printf("latency   %s\n", splitText(&res.Splits[i], res.Fast))
	}
	tableCauses(w, t.Reasons())
	w.Printf("spend     recorded on failed calls %s; official cost of the %d billed by their provider %s\n\n", money(t.Recorded), t.BilledCalls, money(t.Billed))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "GATEWAY\tPROVIDER\tMODEL GROUP\tKEY\tUPSTREAM\tBY LATENCY\tGATEWAY\tUNKNOWN\tTOKENS\tRECORDED\tBILLED\tREASONS\t")
	for i := range res.Groups {
		g := &res.Groups[i]
		group := g.ModelGroup
		if g.Route != "" {
			group = "route " + g.Route
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t\n", g.Gateway, tableCell(orDash(g.Provider)), tableCell(orDash(group)),
			tableCell(keyText(g.Key, g.KeyAlias)), g.Calls[failures.Upstream], g.UpstreamByLatency, g.Calls[failures.Gateway], g.Calls[failures.Unknown],
			g.Tokens, money(g.Recorded), money(g.Billed), orDash(reasonsText(g.Reasons())))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	tableRejections(w, res)
	tableHours(w, res.Hours)
	if err := tableEpisodes(w, res); err != nil {
		return err
	}
	return w.Err
}

// tableEpisodes writes the episodes, by date over several dates, and
// the fix each pool calls for.
func tableEpisodes(w *textout.Writer, res *failures.Result) error {
	if len(res.Episodes) == 0 {
		w.Printf("\nepisodes  none: no run of gateway refusals followed an upstream failure within the gateway's rest\n")
		return nil
	}
	w.Printf("\nepisodes  %d: gateway refusals after an upstream failure, within the rest (docs/calls.md, \"Reading an episode\")\n", len(res.Episodes))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "START (UTC)\tEND\tGATEWAY\tPROVIDER\tMODEL GROUP\tTRIGGER\tREFUSED\tIN\tOVER\tRETRIED\tSERVED BY\t")
	for i := range res.Episodes {
		ep := &res.Episodes[i]
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%d\t%s\t\n", ep.Start().UTC().Format(time.RFC3339), ep.End().UTC().Format(time.RFC3339),
			ep.Gateway, tableCell(orDash(ep.Provider)), tableCell(orDash(ep.ModelGroup)),
			tableCell(triggerText(&ep.Trigger)), ep.Refused, latencyRange(ep.RefusalLatency), ep.Span().Round(time.Second), ep.Retried, servedBy(ep))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if days := res.ByDate(); len(days) > 1 {
		tableDays(w, days)
	}
	w.Printf("\nfixes     one per provider or model group (docs/calls.md, \"What to change\")\n")
	for _, f := range res.Fixes() {
		w.Printf("  %s: %s\n", tableCell(fixName(&f)), fixText(&f, res.Config))
	}
	return nil
}

// byLatencyNote says how many upstream failures only latency shows.
func byLatencyNote(n int64) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d by latency alone)", n)
}

// splitText is one route's latency split: "POST /v1/chat/completions at
// 100ms: 4 fast 1ms-6ms (gateway), 2 slow 316ms-1.84s (upstream, by latency)".
func splitText(sp *failures.LatencySplit, fast time.Duration) string {
	return fmt.Sprintf("%s split at %s (--fast-ms): %s (gateway), %s (upstream, by latency)",
		tableCell(sp.Route), fast, spanText(sp.Fast, "fast"), spanText(sp.Slow, "slow"))
}

// spanText is "4 fast 1ms-6ms", or "0 slow".
func spanText(s failures.Span, side string) string {
	switch {
	case s.Count == 0:
		return "0 " + side
	case s.Min == s.Max:
		return fmt.Sprintf("%d %s %s", s.Count, side, s.Min)
	}
	return fmt.Sprintf("%d %s %s-%s", s.Count, side, s.Min, s.Max)
}

// triggerText is an episode's trigger: "a1b2c3d4 503 in 812ms", and
// "(by latency)" when only its latency shows it reached the provider.
func triggerText(tr *failures.Failure) string {
	t := fmt.Sprintf("%s %s in %s", orDash(tr.RequestID), statusText(tr.HTTPStatus), tr.Latency())
	if tr.Evidence == failures.ByLatency {
		t += " (by latency)"
	}
	return t
}

// latencyRange is "1ms-6ms", or one latency when all were alike.
func latencyRange(s failures.Span) string {
	if s.Min == s.Max {
		return s.Min.String()
	}
	return s.Min.String() + "-" + s.Max.String()
}

// tableDays writes the episodes by date.
func tableDays(w *textout.Writer, days []failures.Day) {
	w.Printf("\nby date   %d dates (%s)\n", len(days), days[0].Date.Location())
	for _, d := range days {
		w.Printf("  %s  %d episode(s), %d refused, %d retried into them\n", d.Date.Format(time.DateOnly), d.Episodes, d.Refused, d.Retried)
	}
}

// reasonAdvice is what each cause of failure calls for: causes that no
// retry mends are told apart from a passing fault.
var reasonAdvice = map[failures.Reason]string{
	failures.ReasonProvider:     "the provider failed (a 5xx, its body where logged): a real upstream failure; a retry after a pause may pass, many in a row are the provider's outage",
	failures.ReasonRetired:      "410: the model is at its end of life: point its alias at the successor; never retried, no retry will pass",
	failures.ReasonQuota:        "429 from the provider: its quota or rate limit: raise it, spread over keys or slow the clients; not a passing fault",
	failures.ReasonCredential:   "401/403 from the provider: it refused the gateway's key or account: replace or re-authorise it; a retry will not pass",
	failures.ReasonCooldown:     "the gateway rested every key or deployment after failures: see the episodes and the fixes",
	failures.ReasonNoCredential: "no key or deployment could serve: inside an episode, its rest (see the fixes); outside one, none is set up for the model",
	failures.ReasonBudget:       "a budget set in the gateway ran out: raise it or wait for its reset; no provider was called",
	failures.ReasonRateLimit:    "a rate limit set in the gateway (rpm, tpm, parallel requests): raise it or spread the load; no provider was called",
	failures.ReasonAuth:         "the gateway refused the client's key",
	failures.ReasonRequest:      "the gateway refused the request itself (a model it does not serve)",
}

// tableCauses writes the failures by cause, each with what it calls for.
func tableCauses(w *textout.Writer, rs []failures.ReasonCount) {
	if len(rs) == 0 {
		return
	}
	w.Printf("causes    each its own, not one failure rate\n")
	for _, r := range rs {
		w.Printf("  %-14s %6d  %-8s  %s\n", r.Reason, r.Calls, r.Reason.Class(), reasonAdvice[r.Reason])
	}
}

// tableRejections writes LiteLLM's "No deployments available" refusals
// by model group and cause.
func tableRejections(w *textout.Writer, res *failures.Result) {
	if len(res.Rejections) == 0 {
		return
	}
	w.Printf("\nrejected  LiteLLM \"No deployments available\", by model group and cause (docs/calls.md, \"Rejections\")\n")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for i := range res.Rejections {
		r := &res.Rejections[i]
		fmt.Fprintf(tw, "  %s\t%s\t%d\t%s\n", tableCell(orDash(r.ModelGroup)), r.Reason, r.Calls, rejectionText(r, res.Config))
	}
	tw.Flush()
}

// rejectionText says what the log and the config tell of a rejection.
func rejectionText(r *failures.Rejection, cfg *failures.Config) string {
	switch r.Reason {
	case failures.ReasonBudget:
		if r.Period == "1d" {
			return "a daily cap set in the gateway (budget per 1d) ran out"
		}
		if r.Period != "" {
			return "a budget set in the gateway (per " + r.Period + ") ran out"
		}
		return "a budget set in the gateway ran out"
	case failures.ReasonRateLimit:
		return "nothing resting: every deployment was over an rpm/tpm limit set in the gateway"
	case failures.ReasonCooldown:
		return cooldownText(r, cfg)
	}
	return reasonAdvice[r.Reason]
}

// cooldownText says whose rest a cooldown rejection was, with the
// settings that make it.
func cooldownText(r *failures.Rejection, cfg *failures.Config) string {
	p := r.Pool
	if p == nil {
		return "its deployments were resting (give --config to see how many serve it)"
	}
	settings := fmt.Sprintf("cooldown_time %s", cfg.Cooldown)
	if cfg.Cooldown == 0 {
		settings = "cooldown_time unset (5s)"
	}
	if cfg.AllowedFailsSet {
		settings = fmt.Sprintf("allowed_fails %d, %s", cfg.AllowedFails, settings)
	}
	if p.Keys == 1 {
		return fmt.Sprintf("the cooldown of a single-deployment group (%s:%d; %s): add a deployment or a fallback (check rule %s)", cfg.File, p.Line, settings, cfg.Rule)
	}
	return fmt.Sprintf("all %d deployments were resting (%s:%d; %s)", p.Keys, cfg.File, p.Line, settings)
}

// tableHours writes the hours with refusals and their share of the
// hour's requests.
func tableHours(w *textout.Writer, hs []failures.Hour) {
	if len(hs) == 0 {
		return
	}
	w.Printf("\nby hour   the gateway's refusals, share of the hour's requests\n")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for i := range hs {
		h := &hs[i]
		fmt.Fprintf(tw, "  %s\t%s\t%d of %d\t%s\t%s\n", h.Start.Format("2006-01-02 15:04 MST"), h.Gateway, h.Rejected, h.Requests,
			shareText(h), reasonsText(h.ByReason()))
	}
	tw.Flush()
}

// shareText is an hour's share of refused requests as a percentage.
func shareText(h *failures.Hour) string {
	if h.Requests == 0 {
		return "-"
	}
	return strconv.FormatFloat(100*h.Share(), 'f', 1, 64) + "%"
}

// reasonsText lists reasons with their counts: "cooldown 3, budget 1".
func reasonsText(rs []failures.ReasonCount) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = fmt.Sprintf("%s %d", r.Reason, r.Calls)
	}
	return strings.Join(parts, ", ")
}

// keyText names a key by its alias, else by the start of its hash.
func keyText(key, alias string) string {
	if alias != "" {
		return alias
	}
	return shortKey(key)
}

func statusText(s int) string {
	if s == 0 {
		return "failed"
	}
	return strconv.Itoa(s)
}

// servedBy says how the configuration serves an episode's pool.
func servedBy(ep *failures.Episode) string {
	p := ep.Pool
	if p == nil {
		return "(give --config)"
	}
	unit := "key"
	if ep.Gateway == ledger.LiteLLM {
		unit = "deployment"
	}
	if p.Keys != 1 {
		unit += "s"
	}
	return fmt.Sprintf("%d %s", p.Keys, unit)
}

// fixName names a fix's pool: its provider or model group, or what the
// log could not tell.
func fixName(f *failures.Fix) string {
	if f.Name == "" {
		return "(provider not logged)"
	}
	return f.Name
}

// fixText says what a pool's episodes cost and what to change, in the
// words check's finding uses (gateway/cliproxy SingleKeyFix), naming the
// check rule.
func fixText(f *failures.Fix, cfg *failures.Config) string {
	what := fmt.Sprintf("%d episode(s), %d request(s) refused by the gateway itself", f.Episodes, f.Refused)
	if f.ByElimination {
		what += "; the log names no provider: the config's only one that holds one key with cooling on"
	}
	p := f.Pool
	switch f.Action {
	case failures.ActionGiveConfig:
		return what + "; give --config to see how many keys or deployments serve it (tokenfare check --config flags a pool of one)"
	case failures.ActionNoPool:
		if len(f.Candidates) > 0 {
			return what + "; the log names no provider, and the config has several that hold one key with cooling on: " + strings.Join(f.Candidates, ", ")
		}
		return what + "; the config has no provider or model group of that name"
	case failures.ActionLeave:
		if f.Gateway == ledger.CLIProxy {
			return what + "; " + cliproxy.RotationNote(f.Name, p.Keys)
		}
		return what + fmt.Sprintf("; %d deployments serve it: its cooldown is the rotation that takes a failing one out; leave it", p.Keys)
	case failures.ActionAddDeployment:
		return what + fmt.Sprintf("; one deployment serves %s (%s:%d): add a second or a fallback, or shorten cooldown_time / raise allowed_fails (check rule %s)",
			f.Name, cfg.File, p.Line, cfg.Rule)
	}
	return what + fmt.Sprintf("; one key serves %s (%s:%d %s): %s (check rule %s)", f.Name, cfg.File, p.Line, p.Field,
		cliproxy.SingleKeyFix(f.Name, p.CoolingField), cfg.Rule)
}

func csvFailures(w io.Writer, r *FailureReport) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"gateway", "provider", "model_group", "key_hash", "key_alias", "route", "upstream", "gateway_refusal", "unknown", "tokens", "recorded", "billed", "billed_calls", "upstream_by_latency"})
	for i := range r.Result.Groups {
		g := &r.Result.Groups[i]
		cw.Write(append(sheetTexts([]string{string(g.Gateway), g.Provider, g.ModelGroup, g.Key, g.KeyAlias, g.Route}),
			itoa(g.Calls[failures.Upstream]), itoa(g.Calls[failures.Gateway]), itoa(g.Calls[failures.Unknown]), itoa(g.Tokens),
			g.Recorded.String(), g.Billed.String(), itoa(g.BilledCalls), itoa(g.UpstreamByLatency)))
	}
	cw.Flush()
	return cw.Error()
}

type failuresDoc struct {
	Rows     rowsDoc           `json:"rows"`
	FastMs   int64             `json:"fast_ms"`
	Splits   []latencySplitDoc `json:"latency_split"`
	Access   failureAccessDoc  `json:"access"`
	Totals   failureGroupDoc   `json:"totals"`
	Groups   []failureGroupDoc `json:"groups"`
	Episodes []episodeDoc      `json:"episodes"`
	ByDate   []episodeDayDoc   `json:"episodes_by_date"`
	Fixes    []fixDoc          `json:"fixes"`
	Causes   []causeDoc        `json:"causes"`
	Rejected []rejectionDoc    `json:"rejections"`
	Hours    []hourDoc         `json:"hours"`
}

type rejectionDoc struct {
	ModelGroup string          `json:"model_group"`
	Reason     string          `json:"reason"`
	Calls      int64           `json:"calls"`
	Period     string          `json:"budget_period,omitempty"`
	Cause      string          `json:"cause"`
	Config     *episodePoolDoc `json:"config"`
}

type hourDoc struct {
	Gateway  string           `json:"gateway"`
	Hour     string           `json:"hour"`
	Requests int64            `json:"requests"`
	Rejected int64            `json:"rejected"`
	Share    float64          `json:"rejected_share"`
	Reasons  map[string]int64 `json:"reasons"`
}

type causeDoc struct {
	Class  string `json:"class"`
	Reason string `json:"reason"`
	Calls  int64  `json:"calls"`
	Advice string `json:"advice"`
}

type fixDoc struct {
	Gateway       string          `json:"gateway"`
	Name          string          `json:"name"`
	Episodes      int             `json:"episodes"`
	Refused       int64           `json:"refused"`
	Action        string          `json:"action"`
	Advice        string          `json:"advice"`
	Config        *episodePoolDoc `json:"config"`
	ByElimination bool            `json:"pool_by_elimination,omitempty"`
	Candidates    []string        `json:"candidates,omitempty"`
}

// actionNames are the JSON's names of the fixes' actions.
var actionNames = map[failures.Action]string{failures.ActionGiveConfig: "give_config", failures.ActionNoPool: "no_pool",
	failures.ActionDisableCooling: "disable_cooling", failures.ActionAddDeployment: "add_deployment", failures.ActionLeave: "leave"}

type latencySplitDoc struct {
	Route string  `json:"route"`
	Fast  spanDoc `json:"fast"`
	Slow  spanDoc `json:"slow"`
}

type spanDoc struct {
	Count int64 `json:"count"`
	MinMs int64 `json:"min_ms"`
	MaxMs int64 `json:"max_ms"`
}

func newSpanDoc(s failures.Span) spanDoc {
	return spanDoc{Count: s.Count, MinMs: s.Min.Milliseconds(), MaxMs: s.Max.Milliseconds()}
}

type failureAccessDoc struct {
	Failed   int64 `json:"failed_lines"`
	Joined   int64 `json:"joined"`
	Alone    int64 `json:"alone"`
	Outside  int64 `json:"outside"`
	Upstream int64 `json:"upstream_lines"`
	Mgmt     int64 `json:"management"`
}

type failureGroupDoc struct {
	Gateway     string           `json:"gateway,omitempty"`
	Provider    string           `json:"provider,omitempty"`
	ModelGroup  string           `json:"model_group,omitempty"`
	KeyHash     string           `json:"key_hash,omitempty"`
	KeyAlias    string           `json:"key_alias,omitempty"`
	Route       string           `json:"route,omitempty"`
	Failed      failedSplitDoc   `json:"failed"`
	ByLatency   int64            `json:"upstream_by_latency"`
	Reasons     map[string]int64 `json:"reasons,omitempty"`
	Tokens      int64            `json:"tokens"`
	Recorded    string           `json:"recorded"`
	Billed      string           `json:"billed"`
	BilledCalls int64            `json:"billed_calls"`
}

type failureDoc struct {
	RequestID  string `json:"request_id,omitempty"`
	Start      string `json:"start"`
	End        string `json:"end"`
	LatencyMs  int64  `json:"latency_ms"`
	HTTPStatus int    `json:"status,omitempty"`
	Route      string `json:"route,omitempty"`
	Deployment string `json:"deployment,omitempty"`
	Text       string `json:"text,omitempty"`
	Evidence   string `json:"evidence"`
}

type episodeDoc struct {
	Gateway    string          `json:"gateway"`
	Provider   string          `json:"provider,omitempty"`
	ModelGroup string          `json:"model_group,omitempty"`
	Start      string          `json:"start"`
	End        string          `json:"end"`
	Refused    int64           `json:"refused"`
	Latency    spanDoc         `json:"refusal_latency"`
	SpanS      float64         `json:"span_seconds"`
	Retried    int64           `json:"retried"`
	CooldownS  float64         `json:"cooldown_seconds"`
	Trigger    failureDoc      `json:"trigger"`
	First      failureDoc      `json:"first_refusal"`
	Last       failureDoc      `json:"last_refusal"`
	Config     *episodePoolDoc `json:"config"`
	// ByElimination: the log named no provider; the config's only
	// single-key provider with cooling on is the pool.
	ByElimination bool     `json:"pool_by_elimination,omitempty"`
	Candidates    []string `json:"candidates,omitempty"`
}

type episodeDayDoc struct {
	Date     string `json:"date"`
	Episodes int    `json:"episodes"`
	Refused  int64  `json:"refused"`
	Retried  int64  `json:"retried"`
}

type episodePoolDoc struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Field   string `json:"field,omitempty"`
	Keys    int    `json:"keys"`
	Cooling bool   `json:"cooling"`
	Single  bool   `json:"single"`
	Rule    string `json:"rule,omitempty"`
}

func newFailureGroupDoc(g *failures.Group) failureGroupDoc {
	var why map[string]int64
	for _, r := range g.Reasons() {
		if why == nil {
			why = map[string]int64{}
		}
		why[r.Reason.String()] = r.Calls
	}
	return failureGroupDoc{Reasons: why, Gateway: string(g.Gateway), Provider: g.Provider, ModelGroup: g.ModelGroup, KeyHash: g.Key, KeyAlias: g.KeyAlias,
		Route: g.Route, Failed: failedSplitDoc{Upstream: g.Calls[failures.Upstream], Gateway: g.Calls[failures.Gateway], Unknown: g.Calls[failures.Unknown]},
		ByLatency: g.UpstreamByLatency, Tokens: g.Tokens, Recorded: g.Recorded.String(), Billed: g.Billed.String(), BilledCalls: g.BilledCalls}
}

func newFailureDoc(f *failures.Failure) failureDoc {
	return failureDoc{RequestID: f.RequestID, Start: f.Start.UTC().Format(time.RFC3339Nano), End: f.End.UTC().Format(time.RFC3339Nano),
		LatencyMs: f.Latency().Milliseconds(), HTTPStatus: f.HTTPStatus, Route: f.Route, Deployment: f.Deployment, Text: f.Text,
		Evidence: f.Evidence.String()}
}

func newFailuresDoc(r *FailureReport) *failuresDoc {
	res := r.Result
	doc := &failuresDoc{Rows: rowsDoc(r.Rows), FastMs: res.Fast.Milliseconds(),
		Access: failureAccessDoc{Failed: res.Access.Failed, Joined: res.Access.Joined, Alone: res.Access.Alone, Outside: res.Access.Outside, Upstream: res.Access.Upstream,
			Mgmt: res.Access.Management},
		Totals: newFailureGroupDoc(&res.Total), Groups: []failureGroupDoc{}, Episodes: []episodeDoc{}, Splits: []latencySplitDoc{},
		Rejected: []rejectionDoc{}, Hours: []hourDoc{}, Causes: []causeDoc{}, Fixes: []fixDoc{}, ByDate: []episodeDayDoc{}}
	for _, sp := range res.Splits {
		doc.Splits = append(doc.Splits, latencySplitDoc{Route: sp.Route, Fast: newSpanDoc(sp.Fast), Slow: newSpanDoc(sp.Slow)})
	}
	for i := range res.Groups {
		doc.Groups = append(doc.Groups, newFailureGroupDoc(&res.Groups[i]))
	}
	for i := range res.Episodes {
		doc.Episodes = append(doc.Episodes, newEpisodeDoc(&res.Episodes[i], res.Config))
	}
	for i := range res.Rejections {
		doc.Rejected = append(doc.Rejected, newRejectionDoc(&res.Rejections[i], res.Config))
	}
	for i := range res.Hours {
		doc.Hours = append(doc.Hours, newHourDoc(&res.Hours[i]))
	}
	for _, r := range res.Total.Reasons() {
		doc.Causes = append(doc.Causes, causeDoc{Class: r.Reason.Class().String(), Reason: r.Reason.String(), Calls: r.Calls, Advice: reasonAdvice[r.Reason]})
	}
	for _, f := range res.Fixes() {
		doc.Fixes = append(doc.Fixes, fixDoc{Gateway: string(f.Gateway), Name: f.Name, Episodes: f.Episodes, Refused: f.Refused, Action: actionNames[f.Action],
			Advice: fixText(&f, res.Config), ByElimination: f.ByElimination, Candidates: f.Candidates, Config: newPoolDoc(f.Pool, res.Config)})
	}
	for _, d := range res.ByDate() {
		doc.ByDate = append(doc.ByDate, episodeDayDoc{Date: d.Date.Format(time.DateOnly), Episodes: d.Episodes, Refused: d.Refused, Retried: d.Retried})
	}
	return doc
}

func newEpisodeDoc(ep *failures.Episode, cfg *failures.Config) episodeDoc {
	return episodeDoc{Gateway: string(ep.Gateway), Provider: ep.Provider, ModelGroup: ep.ModelGroup,
		Start: ep.Start().UTC().Format(time.RFC3339Nano), End: ep.End().UTC().Format(time.RFC3339Nano), Refused: ep.Refused,
		CooldownS: ep.Cooldown.Seconds(), Trigger: newFailureDoc(&ep.Trigger), First: newFailureDoc(&ep.First), Last: newFailureDoc(&ep.Last),
		Latency: newSpanDoc(ep.RefusalLatency), SpanS: ep.Span().Seconds(), Retried: ep.Retried,
		ByElimination: ep.ByElimination, Candidates: ep.Candidates, Config: newPoolDoc(ep.Pool, cfg)}
}

// newPoolDoc is a config's pool as the JSON gives it; nil for none.
func newPoolDoc(p *failures.Pool, cfg *failures.Config) *episodePoolDoc {
	if p == nil {
		return nil
	}
	return &episodePoolDoc{File: cfg.File, Line: p.Line, Field: p.Field, Keys: p.Keys, Cooling: p.Cooling, Single: p.Keys <= 1, Rule: cfg.Rule}
}

func newRejectionDoc(r *failures.Rejection, cfg *failures.Config) rejectionDoc {
	return rejectionDoc{ModelGroup: r.ModelGroup, Reason: r.Reason.String(), Calls: r.Calls, Period: r.Period, Cause: rejectionText(r, cfg),
		Config: newPoolDoc(r.Pool, cfg)}
}

func newHourDoc(h *failures.Hour) hourDoc {
	why := map[string]int64{}
	for _, r := range h.ByReason() {
		why[r.Reason.String()] = r.Calls
	}
	return hourDoc{Gateway: string(h.Gateway), Hour: h.Start.Format(time.RFC3339), Requests: h.Requests,
		Rejected: h.Rejected, Share: math.Round(h.Share()*10000) / 10000, Reasons: why}
}
