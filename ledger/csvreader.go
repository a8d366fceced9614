package ledger

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"unsafe"
)

// csvReader reads a row-per-call CSV file in parallel. One goroutine cuts
// the input into chunks that end on record boundaries; Options.Workers
// goroutines parse chunks into batches; Next hands the batches out in
// input order. At most a few chunks are in flight, so memory does not grow
// with the input.
type csvReader struct {
	name        string
	where       *string // name, which the calls read point to (Call.Where)
	schema      *schema
	pos         []int // header position -> schema column, trashCol = ignored
	keep        int   // splitter.keep: 1 + the field read with its quotes doubled
	src         io.Reader
	firstLine   int
	chunkSize   int
	maxRecord   int
	batchSize   int
	skipHolders Holders // Options.SkipHolders

	order chan *csvChunk // chunks in input order, for Next
	jobs  chan *csvChunk // chunks to parse, for the workers
	done  chan struct{}
	once  sync.Once
	free  chan []byte
	// batches are emptied batches for the workers to fill again: a
	// bounded list rather than a sync.Pool, which each garbage collection
	// empties, so that their calls are not allocated again after each.
	batches chan *Batch

	cur  []*Batch
	next int
	err  error

	// marks are the cutter's marks of the buffer it scans (csvMarks.scan),
	// nil when it holds no quote; a chunk takes them with it, for its
	// worker. freeMarks are marks its workers are done with.
	marks     *csvMarks
	freeMarks chan *csvMarks
}

// readAhead is how many chunks beyond one per worker the cutter may be
// ahead of Next.
const readAhead = 16

// csvChunk is a run of whole records, or a fatal error in input order.
type csvChunk struct {
	buf     []byte // pooled storage, returned after parsing
	data    []byte
	line    int    // line number of data[0]
	lines   int    // newlines in data: a bound on its rows
	broken  string // why data, the first line of a record, is skipped; "" when it is not
	noQuote bool   // data holds no quote
	// marks, when not nil, are the marks of data's commas and quotes
	// the cutter made: the worker reads them rather than marking again.
	marks *csvMarks
	err   error
	out   chan csvResult
}

type csvResult struct {
	batches []*Batch
	err     error
}

func newCSVReader(name string, s *schema, br *bufio.Reader, opt Options) (*csvReader, error) {
	header, blanks, err := readHeader(br)
	if err != nil {
		return nil, inputError(name, 1+blanks, err)
	}
	pos, err := s.mapHeader(header)
	if err != nil {
		return nil, inputError(name, 1+blanks, err)
	}
	opt = opt.withDefaults()
	// Chunks cut ahead of Next: enough that a pause of one goroutine
	// does not leave the others waiting, which on two cores cost 8–12% of
	// the wall time with the old depth of Workers+1.
	ahead := opt.Workers + readAhead
	r := &csvReader{
		name: name, where: &name, schema: s, pos: pos, src: br, firstLine: 2 + blanks,
		chunkSize: opt.ChunkSize, maxRecord: opt.maxRecord, batchSize: opt.BatchSize, skipHolders: opt.SkipHolders,
		order:     make(chan *csvChunk, ahead),
		jobs:      make(chan *csvChunk, ahead),
		done:      make(chan struct{}),
		free:      make(chan []byte, ahead+opt.Workers+4),
		freeMarks: make(chan *csvMarks, ahead+opt.Workers+4),
		// Every chunk in flight holds a batch or two.
		batches: make(chan *Batch, 2*(ahead+opt.Workers)),
	}
	if !opt.unescapeAll {
		r.keep = s.doubledField(pos)
	}
	go r.cut()
	for range opt.Workers {
		go r.work()
	}
	return r, nil
}

// readHeader reads and splits the header line, after any blank lines; it
// returns how many blank lines it skipped.
func readHeader(br *bufio.Reader) ([]string, int, error) {
	var line []byte
	var err error
	blanks := 0
	for {
		line, err = br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			return nil, 0, fmt.Errorf("%w: header line longer than %d bytes", ErrBadHeader, br.Size())
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, 0, err
		}
		if len(bytes.TrimSpace(line)) > 0 || err != nil {
			break
		}
		blanks++
	}
	data := bytes.Clone(line)
	var sp splitter
	_, _, blank, bad := sp.record(data, 0)
	if blank || bad != "" {
		return nil, 0, fmt.Errorf("%w: unreadable header line", ErrBadHeader)
	}
	header := make([]string, len(sp.fields))
	for i, f := range sp.fields {
		header[i] = string(f)
	}
	return header, blanks, nil
}

// Format names the detected format.
func (r *csvReader) Format() string { return r.schema.format }

// Close stops the reader's goroutines.
func (r *csvReader) Close() error {
	r.stop()
	return nil
}

// stop stops the reader's goroutines; it may be called more than once.
func (r *csvReader) stop() { r.once.Do(func() { close(r.done) }) }

// Next refills b with the next batch. The slices in b are recycled: they
// are valid until the following call to Next.
func (r *csvReader) Next(ctx context.Context, b *Batch) error {
	for {
		if r.next < len(r.cur) {
			res := r.cur[r.next]
			r.cur[r.next] = nil
			r.next++
			b.take(res)
			r.putBatch(res)
			return nil
		}
		b.Reset()
		if r.err != nil {
			return r.err
		}
		var ch *csvChunk
		var ok bool
		select {
		case ch, ok = <-r.order:
		case <-r.done:
			r.err = errStopped
			continue
		case <-ctx.Done():
			r.err = ctx.Err()
			r.stop()
			continue
		}
		if !ok {
			r.err = io.EOF
			r.stop()
			continue
		}
		var res csvResult
		select {
		case res = <-ch.out:
		case <-r.done:
			r.err = errStopped
			continue
		case <-ctx.Done():
			r.err = ctx.Err()
			r.stop()
			continue
		}
		r.cur, r.next = res.batches, 0
		if res.err != nil {
			r.err = res.err
			r.stop()
		}
	}
}

// putBatch keeps an emptied batch for reuse, or lets it go when enough
// are kept.
func (r *csvReader) putBatch(b *Batch) {
	select {
	case r.batches <- b:
	default:
	}
}

func (r *csvReader) getBuf(n int) []byte {
	select {
	case b := <-r.free:
		if len(b) >= n {
			return b
		}
	default:
	}
	return make([]byte, max(n, r.chunkSize))
}

func (r *csvReader) putBuf(b []byte) {
	if len(b) != r.chunkSize {
		return // grown for a long record: let it go
	}
	select {
	case r.free <- b:
	default:
	}
}

// send queues a chunk for parsing and for in-order delivery.
func (r *csvReader) send(ch *csvChunk) bool {
	ch.out = make(chan csvResult, 1)
	select {
	case r.order <- ch:
	case <-r.done:
		return false
	}
	select {
	case r.jobs <- ch:
		return true
	case <-r.done:
		return false
	}
}

// cut reads the input and cuts it into chunks of whole records.
func (r *csvReader) cut() {
	defer close(r.order)
	defer close(r.jobs)
	line := r.firstLine
	buf := r.getBuf(r.chunkSize)
	n := 0
	eof := false
	skipping := false // the rest of an overlong line is being dropped
	for {
		for !eof && n < len(buf) {
			m, err := r.src.Read(buf[n:])
			n += m
			if errors.Is(err, io.EOF) {
				eof = true
			} else if err != nil {
				r.send(&csvChunk{err: inputError(r.name, line, err)})
				return
			}
		}
		if skipping {
			nl := bytes.IndexByte(buf[:n], '\n')
			if nl < 0 && !eof {
				n = 0
				continue
			}
			if nl >= 0 {
				n = copy(buf, buf[nl+1:n])
				line++
			} else {
				n = 0
			}
			skipping = false
		}
		if n == 0 && eof {
			return
		}
		data := buf[:n]
		end, open, quoted := r.scan(data)
		broken := ""
		switch {
		case eof && !open:
			end = n
		case end > 0:
		case eof || n >= r.maxRecord:
			// A record that never ends: give up on its first line and
			// start again on the next one.
			broken = "quoted field never closed: skipped this line"
			if nl := bytes.IndexByte(data, '\n'); nl >= 0 {
				end = nl + 1
			} else {
				end = n
				if !eof {
					broken = fmt.Sprintf("line longer than %d bytes: skipped", r.maxRecord)
					skipping = true
				}
			}
		default:
			grown := make([]byte, 2*len(buf))
			copy(grown, data)
			r.putBuf(buf)
			buf = grown
			continue
		}
		rest := data[end:]
		nextBuf := r.getBuf(len(rest) + r.chunkSize/2)
		copy(nextBuf, rest)
		chunk := &csvChunk{buf: buf, data: data[:end], line: line, broken: broken, noQuote: !quoted}
		r.handMarks(chunk)
		line += chunk.lines
		if !r.send(chunk) {
			return
		}
		buf, n = nextBuf, len(rest)
	}
}

// scan is scanRecords, from the marks of data (r.marks) where they are
// made vectorised (fastCommaMasks) and data holds a quote: a flat export
// holds none, and a search for one is quicker than marking them.
func (r *csvReader) scan(data []byte) (end int, open, quoted bool) {
	if fastCommaMasks && bytes.IndexByte(data, '"') >= 0 {
		if r.marks == nil {
			r.marks = r.getMarks()
		}
		r.marks.mark(data)
		return r.marks.scan(data)
	}
	r.putMarks(r.marks)
	r.marks = nil
	return scanRecords(data)
}

// handMarks counts the lines of the chunk, and hands it the marks of
// its data when it is a run of records the cutter marked.
func (r *csvReader) handMarks(ch *csvChunk) {
	if r.marks == nil || ch.broken != "" {
		ch.lines = bytes.Count(ch.data, nl)
		return
	}
	ch.marks, r.marks = r.marks, nil
	ch.marks.cut(len(ch.data))
	ch.lines = countBits(ch.marks.lines)
}

func (r *csvReader) getMarks() *csvMarks {
	select {
	case m := <-r.freeMarks:
		return m
	default:
		return &csvMarks{}
	}
}

func (r *csvReader) putMarks(m *csvMarks) {
	if m == nil {
		return
	}
	select {
	case r.freeMarks <- m:
	default:
	}
}

// work parses chunks until there are none.
func (r *csvReader) work() {
	w := &csvWorker{r: r}
	w.p.skipHolders = r.skipHolders
	w.p.deferPairs = true
	w.sp.dst, w.sp.pos, w.sp.keep = &w.v, r.pos, r.keep
	for ch := range r.jobs {
		var res csvResult
		if ch.err != nil {
			res.err = ch.err
		} else {
			res.batches = w.parse(ch)
			r.putBuf(ch.buf)
		}
		ch.out <- res
	}
}

// csvWorker is one parsing goroutine's state.
type csvWorker struct {
	r     *csvReader
	sp    splitter
	p     rowParser
	v     rowFields
	arena []byte   // the request ids of the current batch
	offs  []uint32 // per call: the end of its request id
	// perCall is the arena bytes per call of the last batch flushed, to
	// size the next arena.
	perCall int
	// pairs are the batch's calls whose key and alias are interned at its
	// flush (internPairs): the calls' places in the batch, and the keys'
	// and aliases' texts.
	pairs                 []int32
	pairKeys, pairAliases [][]byte
	sink                  uint64 // what internPairs read ahead (interner.getPairs)
	out                   []*Batch
	b                     *Batch
}

// newBatch starts a batch with room for rows calls.
func (w *csvWorker) newBatch(rows int) {
	select {
	case w.b = <-w.r.batches:
	default:
		w.b = &Batch{}
	}
	if rows = min(rows, w.r.batchSize); cap(w.b.Calls) < rows {
		// A quarter to spare: chunks differ by a few lines, and a batch
		// a line too short for the next chunk would be made again.
		w.b.Calls = make([]Call, 0, min(rows+rows/4, w.r.batchSize))
	}
	if w.arena == nil {
		// As many calls as the last batch's, with an eighth to spare.
		w.arena = make([]byte, 0, rows*(w.perCall+w.perCall/8+1))
	}
	w.arena, w.offs = w.arena[:0], w.offs[:0]
}

// flush finishes the current batch: one string holds the unique text of
// all its calls, so a batch costs one allocation for it, not one per call.
// The string is the arena itself, not a copy: the arena is handed over
// and never written again, and the next batch gets a new one.
func (w *csvWorker) flush() {
	b := w.b
	if b.Rows == 0 {
		w.r.putBatch(b)
		return
	}
	if len(b.Calls) > 0 {
		w.perCall = len(w.arena) / len(b.Calls)
	}
	w.internPairs(b)
	s := unsafe.String(unsafe.SliceData(w.arena), len(w.arena))
	w.arena = nil
	start := uint32(0)
	for i := range b.Calls {
		c := &b.Calls[i]
		idEnd := w.offs[i]
		c.RequestID = s[start:idEnd]
		c.Identity = c.RequestID
		start = idEnd
	}
	w.out = append(w.out, b)
}

// deferPair notes the key and alias of the batch's call i, to be interned
// with the others at the flush. They are the row's fields as split: in
// the chunk's bytes (a quoted field unescaped in place), which stay as
// they are until parse returns, and parse flushes its last batch before.
func (w *csvWorker) deferPair(i int, key, alias []byte) {
	w.pairs = append(w.pairs, int32(i))
	w.pairKeys = append(w.pairKeys, key)
	w.pairAliases = append(w.pairAliases, alias)
}

// internPairs sets the key and alias of the batch's calls deferPair
// noted, all at once (interner.getPairs).
func (w *csvWorker) internPairs(b *Batch) {
	if len(w.pairs) == 0 {
		return
	}
	w.p.strs.getPairs(w.pairKeys, w.pairAliases, func(i int, key, alias string) {
		c := &b.Calls[w.pairs[i]]
		c.Key, c.KeyAlias = key, alias
	}, &w.sink)
	clear(w.pairKeys)
	clear(w.pairAliases)
	w.pairs, w.pairKeys, w.pairAliases = w.pairs[:0], w.pairKeys[:0], w.pairAliases[:0]
}

func (w *csvWorker) parse(ch *csvChunk) []*Batch {
	r := w.r
	w.out = nil
	w.newBatch(ch.lines + 1)
	if ch.broken != "" {
		w.b.Rows++
		w.reject(ch.line, ch.broken)
		w.flush()
		return w.out
	}
	data, pos, line := ch.data, 0, ch.line
	w.v.data = data
	w.sp.noQuote = ch.noQuote
	if m := ch.marks; m != nil {
		own, ownQuotes := w.sp.masks, w.sp.quotes
		w.sp.masks, w.sp.quotes, w.sp.lines, w.sp.plain = m.commas, m.quotes, m.lines, m.plain
		defer func() {
			w.sp.masks, w.sp.quotes, w.sp.lines, w.sp.plain = own, ownQuotes, nil, false
			r.putMarks(m)
		}()
	} else if fastCommaMasks {
		w.sp.markCommas(data)
	}
	ncols := len(r.pos)
	nul := -1 // the next NUL byte; -1 when none is left
	if ch.marks == nil || ch.marks.nul {
		nul = bytes.IndexByte(data, 0)
	}
	for pos < len(data) {
		next, lines, blank, bad := w.sp.record(data, pos)
		at, from := line, pos
		pos, line = next, line+lines
		if nul >= 0 && nul < next {
			bad = nulReason(nul - from)
			nul = nextNUL(data, next)
		}
		if blank {
			continue
		}
		if w.b.Rows >= r.batchSize {
			w.flush()
			w.newBatch(ch.lines + 1)
		}
		w.b.Rows++
		if bad != "" {
			w.reject(at, bad)
			continue
		}
		nf := w.sp.n
		if nf < 0 {
			nf = len(w.sp.fields)
			if nf == ncols {
				base := cap(data)
				for i, f := range w.sp.fields {
					a := int32(base - cap(f))
					w.v.at[w.r.pos[i]&(maxCols-1)] = [2]int32{a, a + int32(len(f))}
				}
			}
		}
		if nf != ncols {
			w.reject(at, fmt.Sprintf("row has %d fields, the header has %d", nf, ncols))
			continue
		}
		w.row(at)
	}
	w.flush()
	return w.out
}

// row turns the split record into a call or a rejection.
func (w *csvWorker) row(line int) {
	s := w.r.schema
	b := w.b
	b.Calls = append(b.Calls, Call{})
	c := &b.Calls[len(b.Calls)-1]
	reason := buildChecked(s.build(s, &w.p, &w.v, c), c)
	if key := w.p.pairKey; key != nil {
		if reason == "" {
			w.deferPair(len(b.Calls)-1, key, w.p.pairAlias)
		}
		w.p.pairKey, w.p.pairAlias = nil, nil
	}
	if reason != "" {
		b.Calls = b.Calls[:len(b.Calls)-1]
		w.reject(line, reason)
		return
	}
	id := w.v.get(s.requestID)
	c.IdentityHash = HashIdentityBytes(id) // here, while the id is in this core's cache
	w.arena = append(w.arena, id...)
	w.offs = append(w.offs, uint32(len(w.arena)))
	c.sourceFile, c.sourceLine = w.r.where, line
}

// nextNUL returns the offset of the first NUL byte of data at or after
// from, or -1.
func nextNUL(data []byte, from int) int {
	if i := bytes.IndexByte(data[from:], 0); i >= 0 {
		return from + i
	}
	return -1
}

// nulReason says why a row holding a NUL byte at offset at is rejected.
func nulReason(at int) string {
	return fmt.Sprintf("a NUL byte at byte %d of the row: binary bytes in a text export (the rest of the file is read)", at+1)
}

func (w *csvWorker) reject(line int, reason string) {
	w.b.Rejected = append(w.b.Rejected, Rejection{File: w.r.name, Line: line, Reason: reason})
}
