package ledger

import (
	"strconv"
	"strings"
	"sync/atomic"
	"unsafe"
)

// The framer (arrayFramer) reads the elements of /spend/logs arrays on one
// goroutine, checking each as JSON and noting where the members of a
// record object lie (and what a record's metadata object holds, read as
// it is checked: framedMeta); it hands them over in jobs, a buffer's
// worth at a time, to Options.Workers goroutines that turn them into
// calls, as the CSV reader hands chunks of records to its workers. Its
// input is read ahead by a goroutine of its own (aheadReader), so that the
// framer, which the others wait on, does not wait in a read. The pushReader gives
// the batches out in input order, each job's in turn with the batches the
// framer's producer makes itself (the decoder's walk, after a hand-over).

// frameJob is a run of array elements the framer read, for a worker: buf
// holds them, elems and members locate them.
type frameJob struct {
	buf     *frameBuf
	data    []byte // the framer's bytes in buf: elems are located in them
	elems   []frameElem
	members []frameMember
	metas   []framedMeta  // the elements' metadata, read by the framer
	out     chan []*Batch // the job's batches, once: the pushReader waits on it
}

// frameElem is one element of an array, buf.b[start:end].
type frameElem struct {
	start, end int
	index      int    // its place in its array
	prefix     string // its array's name in locations (elementWhere)
	// first and n locate its members in the job's; n is -1 when the
	// element is not an object.
	first, n int
	meta     int // its metadata in the job's metas; -1: not read
}

// frameMember is one member of a record object: its name (as written
// between its quotes) and its value, as offsets from the element's start.
type frameMember struct {
	key, val [2]int32
	plain    bool      // the name holds no escape and only ASCII
	kind     valueKind // what the value is (setJSON)
}

// frameBuf is a framer buffer, shared by the jobs of the elements it
// holds: it goes back to the free list when the framer and every job are
// done with it.
type frameBuf struct {
	b    []byte
	refs atomic.Int32
}

// frameBufSize is the size of the framer's buffers.
const frameBufSize = 1 << 20

// release drops a reference to fb; the last one puts it back on free.
func (fb *frameBuf) release(free chan *frameBuf) {
	if fb.refs.Add(-1) != 0 || cap(fb.b) != frameBufSize {
		return
	}
	select {
	case free <- fb:
	default:
	}
}

// newFrameBuf returns a buffer of at least n bytes' room, held once.
func newFrameBuf(free chan *frameBuf, n int) *frameBuf {
	var fb *frameBuf
	select {
	case fb = <-free:
	default:
	}
	if fb == nil || cap(fb.b) < n {
		fb = &frameBuf{b: make([]byte, 0, max(n, frameBufSize))}
	}
	fb.b = fb.b[:0]
	fb.refs.Store(1)
	return fb
}

// frameWork is what the workers of one reader share.
type frameWork struct {
	name      string
	schema    *schema    // the records' schema; nil: rec reads each element
	rec       recordFunc // used when schema is nil: it keeps no state
	batchSize int
	workers   int
	skip      Holders
	jobs      chan *frameJob
	spare     chan *frameJob // jobs done with, for the framer to fill again
	free      chan *frameBuf
	batches   chan *Batch // emptied batches, as csvReader keeps them
}

// work turns jobs into batches until there are none.
func (fw *frameWork) work() {
	w := &frameWorker{fw: fw}
	w.p.skipHolders = fw.skip
	if fw.schema != nil {
		w.row = &rowMembers{s: fw.schema}
	}
	for j := range fw.jobs {
		j.out <- w.parse(j)
		j.buf.release(fw.free)
		j.buf, j.data, j.out, j.elems, j.members, j.metas = nil, nil, nil, j.elems[:0], j.members[:0], j.metas[:0]
		select {
		case fw.spare <- j:
		default:
		}
	}
}

// frameWorker is one worker's state.
type frameWorker struct {
	fw    *frameWork
	p     rowParser
	row   *rowMembers
	arena callArena
	out   []*Batch
	b     *Batch
}

// parse turns the elements of j into calls and rejections.
func (w *frameWorker) parse(j *frameJob) []*Batch {
	w.out = nil
	w.newBatch(len(j.elems))
	for k := range j.elems {
		if w.b.Rows >= w.fw.batchSize {
			w.flush()
			w.newBatch(len(j.elems) - k)
		}
		w.element(j, &j.elems[k])
	}
	w.flush()
	return w.out
}

// element turns one element into a call or a rejection.
func (w *frameWorker) element(j *frameJob, el *frameElem) {
	b := w.b
	b.Rows++
	b.Calls = append(b.Calls, Call{})
	c := &b.Calls[len(b.Calls)-1]
	raw := j.data[el.start:el.end]
	id, reason := w.record(j, el, raw, c)
	if reason != "" {
		b.Calls = b.Calls[:len(b.Calls)-1]
		item := elementWhere(el.prefix, el.index, string(id))
		b.Rejected = append(b.Rejected, Rejection{File: w.fw.name, Item: item, Reason: reason})
		return
	}
	if w.row != nil {
		c.IdentityHash = HashIdentityBytes(id)
		w.arena.add(id, w.fw.name, el.prefix, el.index, id)
	} else {
		w.arena.add(nil, w.fw.name, el.prefix, el.index, id)
	}
}

// record reads an element into c, by its members when the framer noted
// them: as schemaRecord or rec reads it.
func (w *frameWorker) record(j *frameJob, el *frameElem, raw []byte, c *Call) (id []byte, reason string) {
	if w.row == nil {
		s, reason := w.fw.rec(&w.p, raw, c)
		return []byte(s), reason
	}
	if el.n < 0 {
		return nil, "not a JSON object: " + strings.TrimPrefix(notObject(raw).Error(), "json: ")
	}
	r := w.row
	r.start(raw)
	for _, m := range j.members[el.first : el.first+el.n] {
		key := raw[m.key[0]:m.key[1]]
		if !m.plain {
			key = unquote(key)
		}
		r.member(key, int(m.val[0]), int(m.val[1]), m.kind)
	}
	if el.meta >= 0 {
		w.p.framed = &j.metas[el.meta]
	}
	id, reason = r.finish(&w.p, c)
	w.p.framed = nil
	return id, reason
}

// newBatch starts a batch with room for rows calls.
func (w *frameWorker) newBatch(rows int) {
	select {
	case w.b = <-w.fw.batches:
	default:
		w.b = &Batch{}
	}
	if rows = min(rows, w.fw.batchSize); cap(w.b.Calls) < rows {
		w.b.Calls = make([]Call, 0, rows)
	}
	w.arena.reset(rows)
}

// flush finishes the current batch: its calls' request ids (when read
// by the schema) and sources are one string (callArena).
func (w *frameWorker) flush() {
	b := w.b
	if b.Rows == 0 {
		select {
		case w.fw.batches <- b:
		default:
		}
		return
	}
	w.arena.finish(b.Calls, w.row != nil)
	w.out = append(w.out, b)
}

// callArena holds the request ids and sources of a batch's calls, to
// make them one string: a batch costs one allocation for them, not one
// or two a call.
type callArena struct {
	text []byte
	offs []uint32 // per call: the end of its request id, of its source
	// perCall is the bytes a call of the last batch took, to size the
	// next one's.
	perCall int
}

// reset starts a batch of about rows calls.
func (a *callArena) reset(rows int) {
	if a.text == nil {
		a.text = make([]byte, 0, rows*(a.perCall+a.perCall/8+1))
	}
	a.text, a.offs = a.text[:0], a.offs[:0]
}

// add adds a call's request id and its source: element index of the
// array named prefix in file name, with its request id.
func (a *callArena) add(id []byte, name, prefix string, index int, requestID []byte) {
	t := append(a.text, id...)
	a.offs = append(a.offs, uint32(len(t)))
	t = append(t, name...)
	if prefix != "" {
		t = append(append(t, ": "...), prefix...)
	}
	t = append(strconv.AppendInt(append(t, '['), int64(index), 10), ']')
	if len(requestID) > 0 {
		t = appendQuoted(append(t, " request_id "...), requestID)
	}
	a.text = t
	a.offs = append(a.offs, uint32(len(t)))
}

// finish sets the calls' sources, and with ids their request ids and
// identities, from one string: the arena's text itself, handed over and
// never written again (the next batch gets a new one).
func (a *callArena) finish(calls []Call, ids bool) {
	if len(calls) > 0 {
		a.perCall = len(a.text) / len(calls)
	}
	s := unsafe.String(unsafe.SliceData(a.text), len(a.text))
	a.text = nil
	start := uint32(0)
	for i := range calls {
		c := &calls[i]
		idEnd, srcEnd := a.offs[2*i], a.offs[2*i+1]
		if ids {
			c.RequestID = s[start:idEnd]
			c.Identity = c.RequestID
		}
		c.Source = s[idEnd:srcEnd]
		start = srcEnd
	}
}

// appendQuoted appends id quoted as strconv.AppendQuote (and so %q) quotes
// it: between quotes as it is when it is printable ASCII without a quote
// or a backslash (a request id mostly is), escaped by strconv otherwise.
func appendQuoted(t, id []byte) []byte {
	for _, c := range id {
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return strconv.AppendQuote(t, unsafe.String(unsafe.SliceData(id), len(id)))
		}
	}
	return append(append(append(t, '"'), id...), '"')
}
