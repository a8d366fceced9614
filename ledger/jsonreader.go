package ledger

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// pushReader turns a producer that walks its input into a Reader. The
// producer runs in its own goroutine and hands over full batches, or
// the channel a worker will give a job's batches on (frameJob).
type pushReader struct {
	name   string
	format string
	ch     chan pushMsg
	done   chan struct{}
	once   sync.Once
	err    error
	// batches are emptied batches, for the workers to fill again.
	batches chan *Batch
	cur     []*Batch // a job's batches, given out from next on
	next    int
}

type pushMsg struct {
	b   *Batch
	err error
	out chan []*Batch
}

// emitter collects a producer's rows into batches.
type emitter struct {
	r    *pushReader
	b    *Batch
	size int
	p    rowParser
}

func newPushReader(name, format string, opt Options, produce func(e *emitter) error) *pushReader {
	opt = opt.withDefaults()
	r := &pushReader{name: name, format: format, ch: make(chan pushMsg, 2+opt.Workers), done: make(chan struct{}),
		batches: make(chan *Batch, 2*(2+opt.Workers))}
	e := &emitter{r: r, b: &Batch{}, size: opt.BatchSize}
	e.p.skipHolders = opt.SkipHolders
	go func() {
		defer close(r.ch)
		err := inputError(name, 0, produce(e))
		if !e.flush() {
			return
		}
		if err != nil {
			r.send(pushMsg{err: err})
		}
	}()
	return r
}

// send queues m for Next; false when the reader was closed.
func (r *pushReader) send(m pushMsg) bool {
	select {
	case r.ch <- m:
		return true
	case <-r.done:
		return false
	}
}

// queue hands j to the workers; false when the reader was closed.
func (r *pushReader) queue(jobs chan *frameJob, j *frameJob) bool {
	select {
	case jobs <- j:
		return true
	case <-r.done:
		return false
	}
}

// Format names the detected format.
func (r *pushReader) Format() string { return r.format }

// Close stops the producer.
func (r *pushReader) Close() error {
	r.stop()
	return nil
}

// stop stops the producer; it may be called more than once.
func (r *pushReader) stop() { r.once.Do(func() { close(r.done) }) }

// Next refills b with the next batch. The slices in b are recycled: they
// are valid until the following call to Next.
func (r *pushReader) Next(ctx context.Context, b *Batch) error {
	for {
		if r.next < len(r.cur) {
			r.give(b)
			return nil
		}
		b.Reset()
		if r.err != nil {
			return r.err
		}
		var m pushMsg
		var ok bool
		select {
		case m, ok = <-r.ch:
		case <-ctx.Done():
			r.err = ctx.Err()
			r.stop()
			return r.err
		}
		switch {
		case !ok:
			r.err = io.EOF
		case m.err != nil:
			r.err = m.err
		case m.out != nil:
			if r.err = r.wait(ctx, m.out); r.err == nil {
				continue
			}
		default:
			*b = *m.b
			return nil
		}
		r.stop()
		return r.err
	}
}

// wait takes a job's batches from out, once its worker is done; a job
// the reader was closed before handing to a worker has none.
func (r *pushReader) wait(ctx context.Context, out chan []*Batch) error {
	select {
	case r.cur = <-out:
		r.next = 0
		return nil
	case <-r.done:
		return errStopped
	case <-ctx.Done():
		return ctx.Err()
	}
}

// give moves the next of a job's batches into b, and keeps the batch
// emptied for a worker.
func (r *pushReader) give(b *Batch) {
	res := r.cur[r.next]
	r.cur[r.next] = nil
	r.next++
	b.take(res)
	select {
	case r.batches <- res:
	default:
	}
}

// errStopped ends a producer whose reader was closed, and is what Next
// returns after Close.
var errStopped = errors.New("reader closed")

func (e *emitter) flush() bool {
	if e.b.Rows == 0 {
		return true
	}
	if !e.r.send(pushMsg{b: e.b}) {
		return false
	}
	e.b = &Batch{}
	return true
}

func (e *emitter) full() error {
	if e.b.Rows >= e.size && !e.flush() {
		return errStopped
	}
	return nil
}

func (e *emitter) call(c *Call) error {
	e.b.Calls = append(e.b.Calls, *c)
	e.b.Rows++
	return e.full()
}

// reject rejects the row at item (line 0) or at line.
func (e *emitter) reject(item string, line int, reason string) error {
	e.b.Rejected = append(e.b.Rejected, Rejection{File: e.r.name, Line: line, Item: item, Reason: reason})
	e.b.Rows++
	return e.full()
}

// where locates the row at item (line 0) or at line, as Call.Source.
func (e *emitter) where(item string, line int) string {
	return Rejection{File: e.r.name, Line: line, Item: item}.Where()
}

// recordFunc turns one JSON value into c. It returns the request id (for
// locations; may be empty) and why the value is rejected ("" if not). It
// sets everything but Source.
type recordFunc func(p *rowParser, raw []byte, c *Call) (requestID, reason string)

// schemaRecord reads a JSON object whose members are a schema's columns.
// The function is one reader's: it keeps the columns of the last record's
// members (memberColumns).
func schemaRecord(s *schema) recordFunc {
	r := &rowMembers{s: s}
	return func(p *rowParser, raw []byte, c *Call) (string, string) {
		r.start(raw)
		err := eachMember(raw, func(k, m []byte) {
			a := cap(raw) - cap(m) // m is raw's: its place in it
			r.member(k, a, a+len(m), valueUnread)
		})
		if err != nil {
			return "", "not a JSON object: " + strings.TrimPrefix(err.Error(), "json: ")
		}
		idText, reason := r.finish(p, c)
		id := string(idText)
		if reason != "" {
			return id, reason
		}
		c.RequestID, c.Identity, c.IdentityHash = id, id, HashIdentity(id)
		return id, ""
	}
}

// rowMembers gathers the members of one record object into its schema's
// columns, the text of each pointing into the record where it can (a
// string with escapes is decoded into a copy).
type rowMembers struct {
	s    *schema
	cols memberColumns
	v    rowFields
	set  uint64 // the columns given, a bit each
	// names are the members' names that gave the columns, to tell one
	// name given twice from two names of one column.
	names [maxCols][]byte
	twice string
	n     int // members read
}

// start begins the record raw: its members are read from it.
func (r *rowMembers) start(raw []byte) {
	r.v.data = raw[:len(raw):len(raw)] // a decoded text is appended to a copy
	r.v.at = [maxCols][2]int32{}
	r.set, r.twice, r.n = 0, "", 0
}

// member reads the member named key whose value is the record's bytes a
// to b, of kind (valueUnread when the caller did not note it). Members
// come in document order; when two names map to one column the first
// wins, as with CSV headers. One name given twice is refused: picking one
// would be a guess.
func (r *rowMembers) member(key []byte, a, b int, kind valueKind) {
	i := r.cols.index(r.s, r.n, key)
	r.n++
	if i < 0 {
		return
	}
	j := i & (maxCols - 1)
	switch {
	case r.set&(1<<j) == 0:
		r.set |= 1 << j
		r.names[j] = key
		r.v.setJSON(i, a, b, kind)
	case r.twice == "" && normName(string(r.names[j])) == normName(string(key)):
		r.twice = fmt.Sprintf("member %q is given twice", key)
	}
}

// finish builds c from the members read. It returns the request id (for
// locations; it may be empty) and why the record is rejected ("" if not).
func (r *rowMembers) finish(p *rowParser, c *Call) (id []byte, reason string) {
	id = r.v.get(r.s.requestID)
	if r.twice != "" {
		return id, r.twice
	}
	return id, buildChecked(r.s.build(r.s, p, &r.v, c), c)
}

// memberColumns remembers the column of each member of the last record,
// by place: the records of one file name their members alike, so a name
// is mostly compared with the last record's rather than looked up.
type memberColumns struct {
	names [][]byte
	cols  []int
}

// maxMembers bounds the members remembered.
const maxMembers = 256

// index returns the column of the n-th member of a record, named key.
func (m *memberColumns) index(s *schema, n int, key []byte) int {
	if n < len(m.names) && bytes.Equal(m.names[n], key) {
		return m.cols[n]
	}
	i := s.indexBytes(key)
	switch {
	case n < len(m.names):
		m.names[n], m.cols[n] = append(m.names[n][:0], key...), i
	case n == len(m.names) && n < maxMembers:
		m.names, m.cols = append(m.names, append([]byte(nil), key...)), append(m.cols, i)
	}
	return i
}

// eachMember calls fn for each member of the JSON object raw, in order:
// its name, decoded, and its value as written. raw is one valid JSON value
// (a decoder's or checked by json.Valid): only its kind can be wrong.
func eachMember(raw []byte, fn func(key, value []byte)) error {
	s := jsonScanner{b: raw}
	s.space()
	if s.peek() != '{' {
		return notObject(raw)
	}
	s.open()
	for more := s.member(true); more; more = s.member(false) {
		key := s.key
		if !s.keyPlain {
			key = unquote(key)
		}
		start := s.i
		if !s.skip() {
			break
		}
		fn(key, raw[start:s.i])
	}
	if !s.end() {
		return errors.New(s.err)
	}
	return nil
}

// notObject says what a JSON value that should be an object holds
// instead: its first token, as a decoder reads it.
func notObject(raw []byte) error {
	tok, err := json.NewDecoder(bytes.NewReader(raw)).Token()
	if err != nil {
		return err
	}
	return fmt.Errorf("found %v", tok)
}

// jsonText returns a JSON value as column text: strings unquoted, null
// empty, anything else (numbers, objects) as written.
func jsonText(m []byte) []byte {
	m = bytes.TrimSpace(m)
	switch {
	case len(m) == 0 || string(m) == "null":
		return nil
	case m[0] == '"':
		s := jsonScanner{b: m}
		raw, flags, ok := s.str()
		if !ok || s.i != len(m) {
			return m
		}
		return text(raw, flags)
	}
	return m
}

// valueKind is what a reader that checked a member's value noted of it,
// so that setJSON need not read a string again: for a string, the flags
// str gave it (strEscape, strHigh), plus valueString.
type valueKind uint8

const (
	// valueUnread: nothing is known of the value; setJSON reads it.
	valueUnread valueKind = 0
	// valueOther: a value that is not a string.
	valueOther valueKind = 1 << 7
	// valueString: a string, its flags in the low bits.
	valueString valueKind = 1 << 6
)

// setJSON sets column c to the text jsonText gives of the JSON value
// v.data[a:b] (one value as written, no white space around it), of kind:
// the bytes of v.data where they are that text, a decoded copy for a
// string with escapes or bytes that are not UTF-8.
func (v *rowFields) setJSON(c, a, b int, kind valueKind) {
	m := v.data[a:b]
	switch {
	case len(m) == 0 || string(m) == "null":
		a, b = 0, 0
	case m[0] != '"' || kind == valueOther:
	case kind&valueString != 0:
		if flags := int(kind &^ valueString); flags != 0 && v.decoded(c, m[1:len(m)-1], flags) {
			return
		}
		a, b = a+1, b-1
	default:
		s := jsonScanner{b: m}
		raw, flags, ok := s.str()
		if !ok || s.i != len(m) {
			break
		}
		if v.decoded(c, raw, flags) {
			return
		}
		a, b = a+1, b-1
	}
	v.at[c&(maxCols-1)] = [2]int32{int32(a), int32(b)}
}

// decoded sets column c to the decoded copy of raw, a string's text as
// written whose str flags are flags, and reports true, when that text
// holds an escape or bytes that are not UTF-8; otherwise it does nothing.
func (v *rowFields) decoded(c int, raw []byte, flags int) bool {
	if flags&strEscape != 0 || (flags != 0 && !utf8.Valid(raw)) {
		v.add(c, unquote(raw))
		return true
	}
	return false
}

// elementWhere locates an element of a JSON array.
func elementWhere(prefix string, i int, requestID string) string {
	w := prefix + "[" + strconv.Itoa(i) + "]"
	if requestID != "" {
		w += fmt.Sprintf(" request_id %q", requestID)
	}
	return w
}

// produceArray walks a JSON array of records, or the array under the
// "data" key of a top-level object (LiteLLM /spend/logs/v2 pages). Every
// top-level value is read: appended queue pops or pages (several arrays
// or objects one after the other) are all read, the second and later
// located as "array 2 at line 7[0]". Any other value after the first is
// refused with its line, never ignored. An element longer than the
// longest record (64 MiB) ends the file with its line: the decoder would
// hold all of it.
//
// The arrays' elements are read by the scanner (arrayFramer) as long as the
// input is what it reads, and turned into calls by workers; from the
// first thing it does not read, the rest is read by encoding/json's
// decoder (decodeArrays), errors and lines alike, and rec. The workers
// read the elements by the members the framer located when s is the
// records' schema (as schemaRecord(s) reads them), else with rec, which
// then must keep no state.
func produceArray(src io.Reader, opt Options, rec recordFunc, s *schema) func(e *emitter) error {
	return func(e *emitter) error {
		opt := opt.withDefaults()
		limit := opt.maxRecord
		fw := &frameWork{name: e.r.name, schema: s, rec: rec, batchSize: opt.BatchSize, workers: opt.Workers,
			skip: opt.SkipHolders, jobs: make(chan *frameJob, 2+opt.Workers), spare: make(chan *frameJob, 4+2*opt.Workers),
			free: make(chan *frameBuf, 4+aheadDepth+2*opt.Workers), batches: e.r.batches}
		defer close(fw.jobs)
		ahead := startReadAhead(src, fw.free)
		defer ahead.stop()
		f := &arrayFramer{ahead: ahead, max: limit, work: fw, e: e, fb: newFrameBuf(fw.free, frameBufSize)}
		f.buf = f.fb.b
		h, err := f.run()
		if err != nil || h == nil {
			return err
		}
		return decodeArrays(e, h.stream(), h.lines, limit, h.k, h.open, rec)
	}
}

// decodeArrays is produceArray's walk with encoding/json's decoder, from
// top-level value k of src on; src starts on line lines+1. With open set,
// value k is an array reopened at the start of src ("[", or "[0 " after
// elements already read): its elements are read from open.next on.
func decodeArrays(e *emitter, src io.Reader, lines, limit, k int, open *openArray, rec recordFunc) error {
	lr := &lineReader{r: src, max: limit, lines: lines}
	dec := json.NewDecoder(lr)
	dec.UseNumber()
	if open != nil {
		// Both are written by handOver.stream ahead of the input: they
		// cannot fail to decode.
		_, _ = dec.Token() // the reopened '['
		if open.next > 0 {
			var before json.RawMessage
			_ = dec.Decode(&before) // the "0" that stands for the element before
		}
		if err := walkArray(e, dec, lr, open.prefix, rec, open.next); err != nil {
			return err
		}
		k++
	}
	for ; ; k++ {
		lr.advance(dec.InputOffset())
		at := lr.lineAt(dec.InputOffset() + leadingBlanks(dec))
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) && k > 1 {
			return nil
		}
		if err != nil {
			return inputError(e.r.name, at, err)
		}
		prefix := ""
		if k > 1 {
			prefix = fmt.Sprintf("array %d at line %d", k, at)
		}
		switch tok {
		case json.Delim('['):
			err = walkArray(e, dec, lr, prefix, rec, 0)
		case json.Delim('{'):
			if k > 1 {
				prefix = fmt.Sprintf("object %d at line %d: data", k, at)
			} else {
				prefix = "data"
			}
			err = walkObject(e, dec, lr, prefix, rec)
		default:
			err = inputError(e.r.name, at, fmt.Errorf("top-level value %d is %v, not an array or object of calls", k, tok))
		}
		if err != nil {
			return err
		}
	}
}

// leadingBlanks is the white space the decoder holds before its next
// token, so that a value is located at its own line.
func leadingBlanks(dec *json.Decoder) int64 {
	var n int64
	br := dec.Buffered().(*bytes.Reader)
	for {
		c, err := br.ReadByte()
		if err != nil || (c != ' ' && c != '\t' && c != '\r' && c != '\n') {
			return n
		}
		n++
	}
}

// jsonError locates a decoder error at the line of the value it was
// reading (the decoder's own offsets are not always from the start of
// the input).
func jsonError(e *emitter, dec *json.Decoder, lr *lineReader, err error) error {
	return inputError(e.r.name, lr.lineAt(dec.InputOffset()+leadingBlanks(dec)), err)
}

// walkObject reads the members of an object whose '{' has been read,
// walking the array under "data"; prefix names that array.
func walkObject(e *emitter, dec *json.Decoder, lr *lineReader, prefix string, rec recordFunc) error {
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return jsonError(e, dec, lr, err)
		}
		if key == "data" {
			if t, err := dec.Token(); err != nil || t != json.Delim('[') {
				return inputError(e.r.name, lr.lineAt(dec.InputOffset()), errors.New(`"data" is not an array`))
			}
			if err := walkArray(e, dec, lr, prefix, rec, 0); err != nil {
				return err
			}
			continue
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return jsonError(e, dec, lr, err)
		}
	}
	_, err := dec.Token()
	return jsonError(e, dec, lr, err)
}

// walkArray reads the elements of an array whose '[' has been read, the
// first of them element first; prefix names the array within the input
// ("" for the first top-level array).
func walkArray(e *emitter, dec *json.Decoder, lr *lineReader, prefix string, rec recordFunc, first int) error {
	for i := first; dec.More(); i++ {
		lr.advance(dec.InputOffset())
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return jsonError(e, dec, lr, fmt.Errorf("element %s: %w", elementWhere(prefix, i, ""), err))
		}
		if err := emitElement(e, prefix, i, raw, rec); err != nil {
			return err
		}
	}
	_, err := dec.Token()
	return jsonError(e, dec, lr, err)
}

// emitElement turns element i of an array into a call or a rejection.
func emitElement(e *emitter, prefix string, i int, raw []byte, rec recordFunc) error {
	var c Call
	id, reason := rec(&e.p, raw, &c)
	item := elementWhere(prefix, i, id)
	if reason != "" {
		return e.reject(item, 0, reason)
	}
	c.Source = e.where(item, 0)
	return e.call(&c)
}

// lineReader passes reads through and keeps the bytes the decoder may
// still ask the line of: from the last offset advance was given. Lines
// before it are counted once, so locating stays linear in the input and
// memory bounded by the decoder's buffer and one element.
type lineReader struct {
	r     io.Reader
	kept  []byte // input from offset base on
	base  int64
	lines int // newlines before base
	max   int // most bytes kept: the longest element
}

func (l *lineReader) Read(p []byte) (int, error) {
	if len(l.kept) > l.max {
		return 0, fmt.Errorf("a JSON value longer than %d bytes", l.max)
	}
	n, err := l.r.Read(p)
	l.kept = append(l.kept, p[:n]...)
	return n, err
}

// advance forgets the input before off, counting its lines.
func (l *lineReader) advance(off int64) {
	n := int(off - l.base)
	if n <= 0 || n > len(l.kept) {
		return
	}
	l.lines += bytes.Count(l.kept[:n], []byte{'\n'})
	l.base = off
	if n > len(l.kept)/2 {
		l.kept = append(l.kept[:0], l.kept[n:]...)
	} else {
		l.kept = l.kept[n:]
	}
}

// lineAt returns the 1-based line of offset off (not before base).
func (l *lineReader) lineAt(off int64) int {
	n := int(min(max(off-l.base, 0), int64(len(l.kept))))
	return l.lines + 1 + bytes.Count(l.kept[:n], []byte{'\n'})
}

// maxLine bounds one JSON line; longer lines are rejected and skipped.
const maxLine = 64 << 20

// produceLines reads one JSON record per line. Blank lines are skipped;
// a line that is not valid JSON is rejected and reading goes on.
func produceLines(br *bufio.Reader, rec recordFunc) func(e *emitter) error {
	return func(e *emitter) error {
		var long []byte
		for n := 1; ; n++ {
			line, err := br.ReadSlice('\n')
			tooLong := false
			if errors.Is(err, bufio.ErrBufferFull) {
				long = append(long[:0], line...)
				for errors.Is(err, bufio.ErrBufferFull) {
					line, err = br.ReadSlice('\n')
					if len(long) < maxLine {
						long = append(long, line...)
					} else {
						tooLong = true
					}
				}
				line = long
			}
			if err != nil && !errors.Is(err, io.EOF) {
				return inputError(e.r.name, n, err)
			}
			if t := bytes.TrimSpace(line); len(t) > 0 {
				if rerr := lineRecord(e, n, t, tooLong, rec); rerr != nil {
					return rerr
				}
			}
			if err != nil {
				return nil
			}
		}
	}
}

func lineRecord(e *emitter, n int, line []byte, tooLong bool, rec recordFunc) error {
	if tooLong {
		return e.reject("", n, fmt.Sprintf("line longer than %d bytes", maxLine))
	}
	if !json.Valid(line) {
		return e.reject("", n, "not valid JSON")
	}
	var c Call
	if _, reason := rec(&e.p, line, &c); reason != "" {
		return e.reject("", n, reason)
	}
	c.Source = e.where("", n)
	return e.call(&c)
}
