package failures

import (
	"cmp"
	"container/heap"
	"time"

	"github.com/tokenfare/tokenfare/ledger"
)

// Lag is how far the access lines of one request, and a line and the
// lines logged before it, may lie apart in the log when no usage record
// is given (Options.AccessOnly): a line is decided once the log has
// reached Lag past its end. CLIProxyAPI writes a request's line as the
// request ends, after its upstream-failure lines, so the log is in time
// order but for the few seconds a slow request's lines may trail.
const Lag = 2 * time.Minute

// stream decides the access lines as the log is read, in time order,
// when no usage record will join them: memory holds the lines of the
// last Lag, the refusals not yet matched, the upstream failures an
// episode can still reach, and the sums.
type stream struct {
	an       *Analyzer
	pending  lineHeap           // by end: not decided yet
	ups      map[string][]*line // upstream-failure lines by request, for Lag after
	upsOrder []upstreamSeen     // when each request's upstream lines were read
	refusals eventHeap          // by start: decided, waiting for their triggers
	find     *finder
	groups   groupSet
	total    Group
	split    splits
	last     time.Time // the latest end read
	decided  time.Time // the latest end decided
	seq      uint64
	// late counts the lines read more than Lag after a later one: they
	// are counted, but may miss the episode they were part of.
	late                     int64
	joined, alone, upstreams int64
}

type upstreamSeen struct {
	id  string
	end time.Time
}

func newStream(an *Analyzer) *stream {
	return &stream{an: an, ups: map[string][]*line{}, find: newFinder(an.opts.Config), groups: groupSet{}, split: splits{}}
}

// add takes one failed line, in the window, of a request line or an
// upstream-failure line with a request id.
func (s *stream) add(c *line) {
	if c.end.Before(s.decided) {
		s.late++
	}
	if c.end.After(s.last) {
		s.last = c.end
	}
	if c.kind == ledger.AccessUpstreamFailure {
		if s.ups[c.id] == nil {
			s.upsOrder = append(s.upsOrder, upstreamSeen{c.id, c.end})
		}
		s.ups[c.id] = append(s.ups[c.id], c)
	}
	s.seq++
	heap.Push(&s.pending, pendingLine{c, s.seq})
	for len(s.pending) > 0 && s.pending[0].end.Before(s.last.Add(-Lag)) {
		s.decide(heap.Pop(&s.pending).(pendingLine).line)
	}
}

// decide classifies line c: the lines that end before it are decided.
func (s *stream) decide(c *line) {
	s.decided = latest(s.decided, c.end)
	switch {
	case c.kind == ledger.AccessUpstreamFailure:
		e := upstreamEvent(c)
		s.upstreams++
		s.find.trigger(&e)
		s.count(&e)
	case c.id != "" && len(s.ups[c.id]) > 0:
		s.joined++ // told by the upstream failures logged for it
	default:
		s.refuseOrCount(c)
	}
	s.match(c.end, false)
	s.forgetUpstreams()
}

// refuseOrCount counts a request line no upstream failure tells, an
// upstream failure by latency that may open an episode, or holds it
// until its episode can be told when it is a refusal that can be part
// of one.
func (s *stream) refuseOrCount(c *line) {
	e := aloneEvent(c, s.an.opts.Fast)
	s.split.add(e.fail.Route, c.latency, s.an.opts.Fast)
	s.alone++
	if e.class == Upstream { // by latency: it may have opened a rest
		s.find.trigger(&e)
	}
	if e.class != Gateway || !e.reason.Opens() {
		s.count(&e)
		return
	}
	s.seq++
	heap.Push(&s.refusals, pendingEvent{e, s.seq})
}

// match puts the refusals that started early enough into their episodes
// (every one, with all): a refusal took less than the fast threshold,
// so once a line ending past its start, the threshold and the log's
// slack is decided, every upstream failure it can follow is known.
func (s *stream) match(decided time.Time, all bool) {
	wait := s.an.opts.Fast + slack
	for len(s.refusals) > 0 && (all || s.refusals[0].fail.Start.Add(wait).Before(decided)) {
		r := heap.Pop(&s.refusals).(pendingEvent).event
		s.find.refusal(&r)
		s.count(&r)
		s.find.forget(r.gateway, r.fail.Start)
	}
}

// forgetUpstreams drops the upstream-failure lines read more than twice
// Lag before the latest line decided: no line of their request is left.
func (s *stream) forgetUpstreams() {
	i := 0
	for ; i < len(s.upsOrder) && s.upsOrder[i].end.Before(s.decided.Add(-2*Lag)); i++ {
		delete(s.ups, s.upsOrder[i].id)
	}
	if i > 0 && 2*i >= len(s.upsOrder) { // in batches: a copy per half dropped
		s.upsOrder = append(s.upsOrder[:0:0], s.upsOrder[i:]...)
	} else if i > 0 {
		s.upsOrder = s.upsOrder[i:]
	}
}

// count sums failure e.
func (s *stream) count(e *event) {
	s.groups.add(e)
	s.an.count(&s.total, e)
}

// finish decides every line left and fills res.
func (s *stream) finish(res *Result) {
	for len(s.pending) > 0 {
		s.decide(heap.Pop(&s.pending).(pendingLine).line)
	}
	s.match(time.Time{}, true)
	res.Access.Joined, res.Access.Alone, res.Access.Upstream = s.joined, s.alone, s.upstreams
	res.Splits = s.split.sorted()
	res.Episodes = s.find.episodes()
	res.Groups = s.groups.sorted()
	res.Total = s.total
}

// pendingLine is a line waiting to be decided; seq keeps the order lines
// were read in among equals.
type pendingLine struct {
	*line
	seq uint64
}

// lineHeap orders lines by end, start and request id.
type lineHeap []pendingLine

func (h lineHeap) Len() int { return len(h) }
func (h lineHeap) Less(i, j int) bool {
	x, y := h[i], h[j]
	return cmp.Or(x.end.Compare(y.end), x.start.Compare(y.start), cmp.Compare(x.id, y.id), cmp.Compare(x.seq, y.seq)) < 0
}
func (h lineHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *lineHeap) Push(x any)   { *h = append(*h, x.(pendingLine)) }
func (h *lineHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	old[len(old)-1] = pendingLine{}
	*h = old[:len(old)-1]
	return x
}

// pendingEvent is a refusal waiting for its episode.
type pendingEvent struct {
	event
	seq uint64
}

// eventHeap orders refusals by start and request id, as the episodes
// are found.
type eventHeap []pendingEvent

func (h eventHeap) Len() int { return len(h) }
func (h eventHeap) Less(i, j int) bool {
	x, y := &h[i], &h[j]
	return cmp.Or(x.fail.Start.Compare(y.fail.Start), cmp.Compare(x.fail.RequestID, y.fail.RequestID), cmp.Compare(x.seq, y.seq)) < 0
}
func (h eventHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *eventHeap) Push(x any)   { *h = append(*h, x.(pendingEvent)) }
func (h *eventHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	old[len(old)-1] = pendingEvent{}
	*h = old[:len(old)-1]
	return x
}
