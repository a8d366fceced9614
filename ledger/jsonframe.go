package ledger

import (
	"bytes"
	"fmt"
	"io"
	"strings"
)

// arrayFramer reads the elements of top-level JSON arrays with the
// scanner, a buffer at a time, for produceArray: the common input (one
// array, or arrays one after the other, of well-formed elements) without
// encoding/json's decoder, which scans each element a byte at a time and
// then again to copy it out. Checking an element, it notes where the
// members of a record object lie, and hands the elements to the workers
// in jobs (frameJob): the workers read the members without scanning the
// element again.
//
// At the first thing it does not read itself (a top-level object, a
// value that is not an array, a malformed or unfinished element, an
// element that may be too long, a read error) it stops before it, where
// the decoder's walk would stand, and hands the rest of the input over to
// that walk (decodeArrays): everything from there on, errors and their
// lines included, is the decoder's.
type arrayFramer struct {
	max int    // the longest element (Options.maxRecord)
	buf []byte // input from buf[0]; read up to len(buf): in fb's bytes
	fb  *frameBuf
	// shared: jobs were handed fb, whose bytes then stay as they are (the
	// framer goes on in another buffer rather than move them).
	shared bool
	job    *frameJob // the elements read and not handed to the workers yet
	work   *frameWork
	ahead  *aheadReader // the input, read on a goroutine of its own
	e      *emitter
	// started: the workers run; stopped: the reader was closed.
	started bool
	stopped error
	pos     int // the next byte to read
	keep    int // where a hand-over would start: bytes before it are done
	lines   int // newlines before buf[0]
	eof     bool
	err     error // the source's error, other than io.EOF
	// long: more than half the longest element would have to be held
	// (an element, or white space between two): the decoder's to bound.
	long bool
}

// handOver is where the decoder's walk takes over: top-level value k, in
// the rest of the input (rest, then the source), which starts on line
// lines+1. With open set, value k is an array the framer opened.
type handOver struct {
	k     int
	lines int
	rest  []byte
	src   io.Reader
	open  *openArray
}

// openArray is an array the framer read elements of: the decoder goes on
// at element next, after the element before it (or the opening bracket).
type openArray struct {
	prefix string // the array's name in locations (elementWhere)
	next   int
}

// run reads arrays until the input ends (nil) or the decoder must take
// over (the hand-over); an error is the emitter's (the reader closed).
func (f *arrayFramer) run() (*handOver, error) {
	for k := 1; ; k++ {
		f.keep = f.pos
		c, ok := f.nonSpace()
		if !ok && f.eof && !f.long && k > 1 {
			return nil, f.dispatch() // only white space after the last array
		}
		if ok && c != '[' && k > 1 {
			// The decoder starts at the value, so that it locates it on
			// its line, as its own walk does after a value it read (the
			// first it locates on line 1).
			f.keep = f.pos
		}
		if !ok || c != '[' {
			return f.handOver(k, nil)
		}
		prefix := ""
		if k > 1 {
			prefix = fmt.Sprintf("array %d at line %d", k, f.lineOf(f.pos))
		}
		f.pos++
		next, done := f.elements(prefix)
		if f.stopped != nil {
			return nil, f.stopped
		}
		if !done {
			return f.handOver(k, &openArray{prefix: prefix, next: next})
		}
	}
}

// elements reads the elements of the array whose '[' was just read, up
// to its ']' (done), or up to what the decoder must read: then next is the
// element it goes on at, and f.keep stands after the element before it.
func (f *arrayFramer) elements(prefix string) (next int, done bool) {
	f.keep = f.pos
	if c, ok := f.nonSpace(); ok && c == ']' {
		f.pos++
		return 0, true
	}
	for i := 0; ; i++ {
		if !f.element(prefix, i) {
			return i, false
		}
		if len(f.job.elems) >= f.work.batchSize && f.dispatch() != nil {
			return i + 1, false
		}
		f.keep = f.pos
		c, ok := f.nonSpace()
		switch {
		case ok && c == ']':
			f.pos++
			return 0, true
		case !ok || c != ',':
			return i + 1, false
		}
		f.pos++
		if c, ok := f.nonSpace(); !ok || c == ']' {
			return i + 1, false // a trailing comma: the decoder's to refuse
		}
	}
}

// element reads the value at f.pos, element index of the array named
// prefix, into the job, reading more input while it runs past the
// buffer. It reports false for a value the decoder must read: not valid
// JSON, cut by the end of the input or a read error, or longer than half
// the longest element (the decoder's bound depends on how its reads
// fall).
func (f *arrayFramer) element(prefix string, index int) bool {
	for {
		j := f.pending()
		mark, metaMark := len(j.members), len(j.metas)
		s := jsonScanner{b: f.buf[f.pos:]}
		ok, n := f.scan(&s, j)
		switch {
		case ok && s.i > f.max/2:
			j.members, j.metas = j.members[:mark], j.metas[:metaMark]
			return false // long: the decoder's to bound
		case ok && (s.i < len(s.b) || f.eof):
			meta := -1
			if len(j.metas) > metaMark {
				meta = metaMark
			}
			j.elems = append(j.elems, frameElem{start: f.pos, end: f.pos + s.i, index: index, prefix: prefix, first: mark, n: n, meta: meta})
			f.pos += s.i
			return true
		}
		j.members, j.metas = j.members[:mark], j.metas[:metaMark]
		switch {
		case !ok && s.i < len(s.b):
			return false // malformed before the buffer's end
		case !f.more(len(s.b)) && (!ok || !f.eof):
			return false // cut by the input's end, a read error, or long
		}
		// The value reached the buffer's end, where it may go on (a
		// number) or be cut: scan it again with more input.
	}
}

// scan reads the value at s.i as skip does; when the workers read records
// by their members and it is an object, its members are noted in j (n of
// them; n is -1 for any other value), and its LiteLLM metadata read into
// j when the schema has it.
func (f *arrayFramer) scan(s *jsonScanner, j *frameJob) (ok bool, n int) {
	if f.work.schema == nil || s.peek() != '{' {
		return s.skip(), -1
	}
	var metas *[]framedMeta
	if f.work.schema.metadata {
		metas = &j.metas
	}
	mark := len(j.members)
	j.members, ok = s.frameObject(j.members, metas)
	return ok, len(j.members) - mark
}

// pending returns the job the elements read go to.
func (f *arrayFramer) pending() *frameJob {
	if f.job == nil {
		select {
		case f.job = <-f.work.spare:
		default:
			f.job = &frameJob{}
		}
	}
	return f.job
}

// dispatch hands the elements read to the workers, in input order with
// the emitter's batches; errStopped when the reader was closed. Their
// job holds the buffer they are in (f.fb).
func (f *arrayFramer) dispatch() error {
	j := f.job
	if j == nil || len(j.elems) == 0 || f.stopped != nil {
		return f.stopped
	}
	f.job = nil
	if !f.started {
		f.started = true
		for range f.work.workers {
			go f.work.work()
		}
	}
	j.buf, j.data, j.out = f.fb, f.buf, make(chan []*Batch, 1)
	f.fb.refs.Add(1)
	f.shared = true
	if !f.e.flush() || !f.e.r.send(pushMsg{out: j.out}) || !f.e.r.queue(f.work.jobs, j) {
		f.stopped = errStopped
	}
	return f.stopped
}

// nonSpace returns the first byte from f.pos on that is not JSON white
// space, leaving f.pos at it; false when the input ends (or fails) first.
func (f *arrayFramer) nonSpace() (byte, bool) {
	for {
		for ; f.pos < len(f.buf); f.pos++ {
			switch c := f.buf[f.pos]; c {
			case ' ', '\t', '\n', '\r':
			default:
				if f.pos-f.keep > f.max/2 {
					f.long = true // white space the decoder's bound counts
					return 0, false
				}
				return c, true
			}
		}
		if !f.fill() {
			return 0, false
		}
	}
}

// more reads until the buffer holds twice the have bytes it held from
// f.pos on, so that a value cut by the buffer's end is scanned again a few
// times rather than once a read; false when nothing was added.
func (f *arrayFramer) more(have int) bool {
	added := false
	for len(f.buf)-f.pos <= 2*have && f.fill() {
		added = true
	}
	return added
}

// fill takes the next read of the input (f.ahead) after the bytes from
// f.keep on; false when there is no more (the input ended or failed), or
// when it would hold more than half the longest element (long). The
// elements read before are handed to the workers first.
//
// The framer mostly goes on in the read's own buffer, the bytes from
// f.keep on copied into its head room; a short read is added after them
// where that copies less, and an element longer than the head room grows
// in a buffer of its own.
func (f *arrayFramer) fill() bool {
	if f.eof || f.err != nil || f.long || f.stopped != nil {
		return false
	}
	if len(f.buf)-f.keep > f.max/2 {
		f.long = true
		return false
	}
	if f.dispatch() != nil {
		return false
	}
	c := f.ahead.next()
	switch {
	case c.err == io.EOF:
		f.eof = true
	case c.err != nil:
		f.err = c.err
	}
	if c.n == 0 {
		f.ahead.recycle(c)
		return false
	}
	data := c.data()
	rest := f.buf[f.keep:]
	switch {
	case !f.shared && len(data) < len(rest) && cap(f.buf)-len(f.buf) >= len(data):
		// A short read while an element is cut: add it where it is.
		f.buf = append(f.buf, data...)
		f.ahead.recycle(c)
		return true
	case len(rest) <= aheadHead:
		b := c.fb.b[aheadHead-len(rest) : aheadHead+c.n]
		copy(b, rest)
		f.drop()
		f.fb.release(f.work.free)
		f.fb, f.buf, f.shared = c.fb, b, false
	case !f.shared && cap(f.buf)-len(rest) >= len(data):
		f.drop()
		f.buf = append(f.buf[:copy(f.buf, rest)], data...)
		f.ahead.recycle(c)
	default:
		fb := newFrameBuf(f.work.free, 2*cap(f.buf)+len(data))
		fb.b = append(append(fb.b, rest...), data...)
		f.drop()
		f.ahead.recycle(c)
		f.fb.release(f.work.free)
		f.fb, f.buf, f.shared = fb, fb.b, false
	}
	return true
}

// drop counts the lines before f.keep, whose bytes fill is about to drop,
// and moves f.pos to where f.keep's byte will stand: the start.
func (f *arrayFramer) drop() {
	f.lines += bytes.Count(f.buf[:f.keep], nl)
	f.pos, f.keep = f.pos-f.keep, 0
}

// lineOf returns the 1-based line of f.buf[i].
func (f *arrayFramer) lineOf(i int) int {
	return f.lines + 1 + bytes.Count(f.buf[:i], nl)
}

// handOver hands the input from f.keep on to the decoder's walk at
// top-level value k, after the elements read before.
func (f *arrayFramer) handOver(k int, open *openArray) (*handOver, error) {
	if err := f.dispatch(); err != nil {
		return nil, err
	}
	h := &handOver{k: k, lines: f.lineOf(f.keep) - 1, rest: f.buf[f.keep:], src: f.ahead, open: open}
	switch {
	case f.err != nil:
		h.src = errReader{f.err}
	case f.eof:
		h.src = strings.NewReader("")
	}
	return h, nil
}

// stream is the rest of the input as the decoder reads it. An open array
// is reopened before it: "[" at its first element, "[0 " after another, so
// that the decoder stands where its own walk would.
func (h *handOver) stream() io.Reader {
	open := ""
	if h.open != nil {
		open = "["
		if h.open.next > 0 {
			open = "[0 " // the space ends the number, whatever follows
		}
	}
	return io.MultiReader(strings.NewReader(open), bytes.NewReader(h.rest), h.src)
}

// errReader fails every read with err.
type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }
