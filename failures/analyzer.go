package failures

import (
	"cmp"
	"errors"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
)

// Options are the analysis's thresholds and context.
type Options struct {
	// Fast is the latency below which a failed request with no usage
	// record was refused by the gateway; zero means DefaultFast.
	Fast time.Duration
	// Config is the gateway's configuration, nil when none was given.
	Config *Config
	// Since and Until bound the access lines counted, [Since, Until) by
	// their end, as the run's window bounds its calls; zero means open.
	Since, Until time.Time
	// Zone is where dates and hours are read (episodes by date); nil
	// means UTC.
	Zone *time.Location
	// AccessOnly says no usage record will be observed: the access lines
	// are classified, and the episodes found, as they are given, in the
	// log's time order (within Lag); memory holds no line for long.
	AccessOnly bool
}

// Group is the failed calls of one provider, model group and key.
type Group struct {
	Gateway    ledger.Gateway
	Provider   string
	ModelGroup string
	Key        string // hashed key; "" when the log names none
	KeyAlias   string
	// Route is the route of refusals that only the access log shows
	// (no record names their provider or model); "" otherwise.
	Route string
	Calls [NumClasses]int64
	// UpstreamByLatency counts the upstream failures of Calls that only
	// their latency shows: no record or upstream-failure line proves them.
	UpstreamByLatency int64
	// why counts the failures by reason.
	why [numReasons]int64
	// Tokens reported on the failed calls.
	Tokens int64
	// Recorded is the spend the gateway recorded on them.
	Recorded decimal.Decimal
	// Billed is the official cost of those whose provider bills failed
	// calls for the tokens reported; BilledCalls counts them.
	Billed      decimal.Decimal
	BilledCalls int64
}

// Failed returns the failed calls of every class.
func (g *Group) Failed() int64 {
	var n int64
	for _, c := range g.Calls {
		n += c
	}
	return n
}

// ReasonCount is how many failures of a group had one reason.
type ReasonCount struct {
	Reason Reason
	Calls  int64
}

// Reasons returns the group's failures by reason, in the order of the
// reasons, leaving out those with none and ReasonNone.
func (g *Group) Reasons() []ReasonCount {
	var out []ReasonCount
	for r := ReasonProvider; r < numReasons; r++ {
		if g.why[r] > 0 {
			out = append(out, ReasonCount{r, g.why[r]})
		}
	}
	return out
}

// add counts one failure into g.
func (g *Group) add(e *event) {
	g.Calls[e.class]++
	g.why[e.reason]++
	if e.class == Upstream && e.fail.Evidence == ByLatency {
		g.UpstreamByLatency++
	}
	g.Tokens += e.tokens
	g.Recorded = g.Recorded.Add(e.recorded)
	if e.billed {
		g.Billed = g.Billed.Add(e.cost)
		g.BilledCalls++
	}
}

// Failure is one failed call or request as an episode shows it.
type Failure struct {
	RequestID  string
	Start, End time.Time
	HTTPStatus int
	Text       string
	Route      string
	Deployment string
	// Client is the client's address, where the access log gives it.
	Client string
	// Evidence is what the failure's class rests on.
	Evidence Evidence
}

// Latency returns how long the failure took.
func (f *Failure) Latency() time.Duration { return f.End.Sub(f.Start) }

// Episode is a run of gateway refusals on one provider or model group
// that followed an upstream failure there within the gateway's rest.
type Episode struct {
	Gateway    ledger.Gateway
	Provider   string
	ModelGroup string
	// Trigger is the upstream failure that began it.
	Trigger Failure
	// Refused counts the refusals; First and Last are the first and last.
	Refused     int64
	First, Last Failure
	// RefusalLatency is the refusals' fastest and slowest answer.
	RefusalLatency Span
	// Retried counts the refusals that came within RetryGap of the end
	// of an earlier failure of the episode from the same client: a
	// client's backoff retried into the rest.
	Retried int64
	// Cooldown is the rest the episode was read against.
	Cooldown time.Duration
	// Pool is the configuration's pool there, nil without a config or
	// when the config has none of that name.
	Pool *Pool
	// ByElimination: the log named no provider (access lines alone), and
	// Pool is the config's only provider whose single key cools.
	ByElimination bool
	// Candidates, when the log named no provider, are the config's
	// providers with a single cooling key, when there are several.
	Candidates []string
}

// Span returns how long the refusals lasted: from the first's start to
// the last's end.
func (e *Episode) Span() time.Duration { return e.Last.End.Sub(e.First.Start) }

// Start returns when the episode began: its trigger's start.
func (e *Episode) Start() time.Time { return e.Trigger.Start }

// End returns when its last refusal ended.
func (e *Episode) End() time.Time { return e.Last.End }

// Single reports whether the configuration serves the episode's pool
// with one key or deployment; known is false without a matching pool.
func (e *Episode) Single() (single, known bool) {
	if e.Pool == nil {
		return false, false
	}
	return e.Pool.Keys <= 1, true
}

// Access accounts for the access log's failed lines.
type Access struct {
	Failed int64 // lines with a status of 400 or more
	Joined int64 // of those, lines whose request has a usage record
	Alone  int64 // of those, lines no usage record shares a request id with: counted as failures themselves
	// Upstream counts the upstream-failure lines no usage record shows,
	// counted as upstream failures.
	Upstream int64
	// Outside counts the failed lines that end outside the window: not
	// counted further.
	Outside int64
	// Management counts the failed lines of the gateway's management API
	// (a poll answered 401 or 404): no model call, not counted further.
	Management int64
}

// Result is what the analysis found.
type Result struct {
	Groups   []Group // ordered by gateway, provider, model group, key, route
	Episodes []Episode
	Total    Group
	Access   Access
	Fast     time.Duration
	// Splits are the access lines that only their latency tells, by
	// route, either side of Fast.
	Splits []LatencySplit
	// Hours are the hours with a gateway refusal: its share of the
	// hour's requests.
	Hours []Hour
	// Rejections are LiteLLM's "No deployments available" refusals by
	// model group and cause.
	Rejections []Rejection
	Config     *Config
	Zone       *time.Location
}

// event is one failure, kept until the episodes are found.
type event struct {
	class    Class
	reason   Reason
	gateway  ledger.Gateway
	provider string
	group    string
	key      string
	alias    string
	fail     Failure
	tokens   int64
	recorded decimal.Decimal
	cost     decimal.Decimal
	billed   bool
	retry    time.Duration // a LiteLLM refusal's "Try again in N seconds"
}

// Analyzer is the failures observer of a run. Memory grows with the
// failed calls, not with the calls; with access lines alone
// (Options.AccessOnly), with the lines of Lag and the sums only.
type Analyzer struct {
	opts   Options
	access map[string][]*line // failed access lines by request id
	// upstream holds the upstream-failure lines by request id.
	upstream map[string][]*line
	alone    []*line // failed access lines without a request id
	joined   map[string]bool
	in       interner
	s        *stream // with Options.AccessOnly
	events   []event
	nAcc     int64
	nOut     int64
	nMgmt    int64
	// hours counts requests by hour; lines says the access log's
	// request lines count CLIProxyAPI's requests, not its records.
	hours hours
	lines bool
}

// New returns an analyzer with opts.
func New(opts Options) *Analyzer {
	if opts.Fast <= 0 {
		opts.Fast = DefaultFast
	}
	if opts.Zone == nil {
		opts.Zone = time.UTC
	}
	a := &Analyzer{opts: opts, access: map[string][]*line{}, upstream: map[string][]*line{}, joined: map[string]bool{},
		hours: hours{}, in: interner{}}
	if opts.AccessOnly {
		a.s = newStream(a)
	}
	return a
}

// Late returns how many access lines, with access lines alone, came more
// than Lag after a line that ended later: they are counted, but may
// miss the episode they belong to.
func (a *Analyzer) Late() int64 {
	if a.s == nil {
		return 0
	}
	return a.s.late
}

// AddAccess gives the analyzer one access-log line, before the run: a
// failed request line joins the usage records of its request, or stands
// for a request no record shows; an upstream-failure line stands for an
// attempt no record shows (usage statistics off, or the record lost).
func (a *Analyzer) AddAccess(l *ledger.AccessLine) {
	if l.Kind == ledger.AccessRequest && management(l.Path) {
		if l.Status >= 400 {
			a.nMgmt++
		}
		return
	}
	if l.Kind == ledger.AccessRequest && a.inWindow(l) {
		a.lines = true
		a.hours.at(ledger.CLIProxy, l.End).Requests++
	}
	if l.Kind == ledger.AccessRequest && l.Status < 400 {
		for _, u := range a.upstreamOf(l.RequestID) {
			u.tell(l, a.in, false)
		}
		return
	}
	if !a.inWindow(l) {
		a.nOut++
		return
	}
	if l.Kind == ledger.AccessUpstreamFailure && l.RequestID == "" {
		return // no request to join it to
	}
	if l.Kind == ledger.AccessRequest {
		a.nAcc++
		for _, u := range a.upstreamOf(l.RequestID) {
			u.tell(l, a.in, true)
		}
	}
	c := a.in.keep(l)
	if a.s != nil {
		a.s.add(c)
		return
	}
	a.hold(c)
}

// upstreamOf returns the upstream-failure lines kept of request id.
func (a *Analyzer) upstreamOf(id string) []*line {
	if id == "" {
		return nil
	}
	if a.s != nil {
		return a.s.ups[id]
	}
	return a.upstream[id]
}

// hold keeps failed line c until the records are observed.
func (a *Analyzer) hold(c *line) {
	switch {
	case c.kind == ledger.AccessUpstreamFailure:
		a.upstream[c.id] = append(a.upstream[c.id], c)
	case c.id == "":
		a.alone = append(a.alone, c)
	default:
		a.access[c.id] = append(a.access[c.id], c)
	}
}

// managementRoute is where CLIProxyAPI serves its management API
// (internal/api/server.go): usage, config, keys, logs; never a model call.
const managementRoute = "/v0/management"

// management reports whether path is of the gateway's management API.
func management(path string) bool {
	return path == managementRoute || strings.HasPrefix(path, managementRoute+"/")
}

// inWindow reports whether l ends inside the window.
func (a *Analyzer) inWindow(l *ledger.AccessLine) bool {
	return (a.opts.Since.IsZero() || !l.End.Before(a.opts.Since)) && (a.opts.Until.IsZero() || l.End.Before(a.opts.Until))
}

// Observe notes a call of the run: a failed one is classified and kept;
// any CLIProxyAPI call joins the access lines of its request.
func (a *Analyzer) Observe(c *ledger.Call, pc *pricing.PricedCall) error {
	if a.s != nil {
		return errAccessOnly
	}
	if c.Gateway == ledger.CLIProxy && c.RequestID != "" && (len(a.access) > 0 || len(a.upstream) > 0) {
		_, failed := a.access[c.RequestID]
		_, attempted := a.upstream[c.RequestID]
		if failed || attempted {
			a.joined[c.RequestID] = true
		}
	}
	if pc.Outcome != pricing.Duplicate && (c.Gateway != ledger.CLIProxy || !a.lines) {
		a.hours.at(c.Gateway, c.Start).Requests++
	}
	if pc.Outcome != pricing.Failed {
		return nil
	}
	class, reason := Classify(c)
	e := event{class: class, reason: reason, gateway: c.Gateway, provider: c.Provider, group: c.ModelGroup,
		key: c.Key, alias: c.KeyAlias, tokens: c.Tokens.Total(), recorded: c.Recorded.Decimal(),
		fail: Failure{RequestID: c.RequestID, Start: c.Start, End: c.End, HTTPStatus: c.Failure.HTTPStatus,
			Text: c.Failure.Text, Route: c.Failure.Route, Deployment: c.Deployment}}
	if e.fail.End.IsZero() {
		e.fail.End = e.fail.Start
	}
	if e.provider == "" {
		e.provider = c.Failure.Provider
	}
	if e.group == "" {
		e.group = c.Model
	}
	e.cost, e.billed = pc.FailedCost(c)
	e.retry = retryAfter(c.Failure.Text)
	a.events = append(a.events, e)
	return nil
}

// routeOf is an upstream-failure line's route, from the request line of
// its request when the log had one.
func routeOf(l *ledger.AccessLine) string {
	if l.Method == "" {
		return ""
	}
	return l.Method + " " + l.Path
}

// tryAgain is how LiteLLM's RouterRateLimitError says how long the rest
// has left (litellm/types/router.py).
var tryAgain = regexp.MustCompile(`Try again in ([0-9]+(?:\.[0-9]+)?) seconds`)

// retryAfter reads "Try again in N seconds" from a message; 0 without.
func retryAfter(text string) time.Duration {
	m := tryAgain.FindStringSubmatch(text)
	if m == nil {
		return 0
	}
	s, err := strconv.ParseFloat(m[1], 64) // a duration, not money
	if err != nil || s < 0 || s > 86400 {
		return 0
	}
	return time.Duration(s * float64(time.Second))
}

// errAccessOnly: an analyzer of access lines alone observed a call.
var errAccessOnly = errors.New("failures: a usage record observed by an analyzer told to expect access lines alone")

// Result classifies the access lines no record joined, finds the
// episodes and sums the groups.
func (a *Analyzer) Result() *Result {
	res := &Result{Fast: a.opts.Fast, Config: a.opts.Config, Zone: a.opts.Zone}
	res.Access.Failed, res.Access.Outside, res.Access.Management = a.nAcc, a.nOut, a.nMgmt
	events := a.events
	split := splits{}
	if a.s != nil {
		a.s.finish(res)
		res.Hours = a.hours.rejected(a.opts.Zone)
		return res
	}
	addAlone := func(l *line) {
		events = append(events, aloneEvent(l, a.opts.Fast))
		split.add(l.route, l.latency, a.opts.Fast)
		res.Access.Alone++
	}
	for id, lines := range a.upstream {
		if a.joined[id] {
			continue // the request's usage records tell its attempts
		}
		for _, l := range lines {
			events = append(events, upstreamEvent(l))
			res.Access.Upstream++
		}
	}
	for id, lines := range a.access {
		if a.joined[id] || len(a.upstream[id]) > 0 {
			// Told by its usage records, or by the upstream failures
			// logged for it.
			res.Access.Joined += int64(len(lines))
			continue
		}
		for _, l := range lines {
			addAlone(l)
		}
	}
	for _, l := range a.alone {
		addAlone(l)
	}
	slices.SortStableFunc(events, func(x, y event) int {
		return cmp.Or(x.fail.Start.Compare(y.fail.Start), cmp.Compare(x.fail.RequestID, y.fail.RequestID))
	})
	res.Splits = split.sorted()
	res.Episodes = episodes(events, a.opts.Config)
	res.Groups = groups(events)
	res.Rejections = rejections(events, a.opts.Config)
	a.total(res, events)
	res.Hours = a.hours.rejected(a.opts.Zone)
	return res
}

// total sums every event into the result's total, and the gateway's
// refusals into their hours.
func (a *Analyzer) total(res *Result, events []event) {
	for i := range events {
		a.count(&res.Total, &events[i])
	}
}

// count sums e into total, and a gateway's refusal into its hour.
func (a *Analyzer) count(total *Group, e *event) {
	total.add(e)
	if e.class == Gateway {
		h := a.hours.at(e.gateway, e.fail.End)
		h.Rejected++
		h.Reasons[e.reason]++
	}
}

// groups sums the events by gateway, provider, model group, key and
// route, in that order.
func groups(events []event) []Group {
	gs := groupSet{}
	for i := range events {
		gs.add(&events[i])
	}
	return gs.sorted()
}

// groupKey is what tells one group from another.
type groupKey struct {
	g                       ledger.Gateway
	provider, group, key, r string
}

// groupSet sums failures by group.
type groupSet map[groupKey]*Group

// add counts e into its group.
func (gs groupSet) add(e *event) {
	k := groupKey{e.gateway, e.provider, e.group, e.key, ""}
	if e.provider == "" && e.group == "" && e.key == "" {
		k.r = e.fail.Route
	}
	g := gs[k]
	if g == nil {
		g = &Group{Gateway: k.g, Provider: k.provider, ModelGroup: k.group, Key: k.key, Route: k.r}
		gs[k] = g
	}
	if g.KeyAlias == "" {
		g.KeyAlias = e.alias
	}
	g.add(e)
}

// sorted returns the groups by gateway, provider, model group, key and
// route; nil for none.
func (gs groupSet) sorted() []Group {
	var out []Group
	for _, g := range gs {
		out = append(out, *g)
	}
	slices.SortFunc(out, func(x, y Group) int {
		return cmp.Or(cmp.Compare(x.Gateway, y.Gateway), cmp.Compare(x.Provider, y.Provider),
			cmp.Compare(x.ModelGroup, y.ModelGroup), cmp.Compare(x.Key, y.Key), cmp.Compare(x.Route, y.Route))
	})
	return out
}
