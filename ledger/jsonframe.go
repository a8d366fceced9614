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
// then again to copy it out.
//
// At the first thing it does not read itself (a top-level object, a
// value that is not an array, a malformed or unfinished element, an
// element that may be too long, a read error) it stops before it, where
// the decoder's walk would stand, and hands the rest of the input over to
// that walk (decodeArrays): everything from there on, errors and their
// lines included, is the decoder's.
type arrayFramer struct {
	src   io.Reader
	max   int    // the longest element (Options.maxRecord)
	buf   []byte // input from buf[0]; read up to len(buf)
	pos   int    // the next byte to read
	keep  int    // where a hand-over would start: bytes before it are done
	lines int    // newlines before buf[0]
	eof   bool
	err   error // the source's error, other than io.EOF
	// long: more than half the longest element would have to be held
	// (an element, or white space between two): the decoder's to bound.
	long bool
}

// frameChunk is how much the framer reads at a time.
const frameChunk = 256 << 10

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
func (f *arrayFramer) run(e *emitter, rec recordFunc) (*handOver, error) {
	for k := 1; ; k++ {
		f.keep = f.pos
		c, ok := f.nonSpace()
		if !ok && f.eof && !f.long && k > 1 {
			return nil, nil // only white space after the last array
		}
		if ok && c != '[' && k > 1 {
			// The decoder starts at the value, so that it locates it on
			// its line, as its own walk does after a value it read (the
			// first it locates on line 1).
			f.keep = f.pos
		}
		if !ok || c != '[' {
			return f.handOver(k, nil), nil
		}
		prefix := ""
		if k > 1 {
			prefix = fmt.Sprintf("array %d at line %d", k, f.lineOf(f.pos))
		}
		f.pos++
		next, done, err := f.elements(e, prefix, rec)
		if err != nil || !done {
			return f.handOver(k, &openArray{prefix: prefix, next: next}), err
		}
	}
}

// elements reads the elements of the array whose '[' was just read, up
// to its ']' (done), or up to what the decoder must read: then next is the
// element it goes on at, and f.keep stands after the element before it.
func (f *arrayFramer) elements(e *emitter, prefix string, rec recordFunc) (next int, done bool, err error) {
	f.keep = f.pos
	if c, ok := f.nonSpace(); ok && c == ']' {
		f.pos++
		return 0, true, nil
	}
	for i := 0; ; i++ {
		raw, ok := f.value()
		if !ok {
			return i, false, nil
		}
		if err := emitElement(e, prefix, i, raw, rec); err != nil {
			return i + 1, false, err
		}
		f.keep = f.pos
		c, ok := f.nonSpace()
		switch {
		case ok && c == ']':
			f.pos++
			return 0, true, nil
		case !ok || c != ',':
			return i + 1, false, nil
		}
		f.pos++
		if c, ok := f.nonSpace(); !ok || c == ']' {
			return i + 1, false, nil // a trailing comma: the decoder's to refuse
		}
	}
}

// value reads the value at f.pos, reading more input while it runs past
// the buffer. It reports false for a value the decoder must read: not
// valid JSON, cut by the end of the input or a read error, or longer than
// half the longest element (the decoder's bound depends on how its reads
// fall).
func (f *arrayFramer) value() ([]byte, bool) {
	for {
		s := jsonScanner{b: f.buf[f.pos:]}
		ok := s.skip()
		switch {
		case ok && s.i > f.max/2:
			return nil, false // long: the decoder's to bound
		case ok && (s.i < len(s.b) || f.eof):
			f.pos += s.i
			return s.b[:s.i], true
		case !ok && s.i < len(s.b):
			return nil, false // malformed before the buffer's end
		case !f.more(len(s.b)) && (!ok || !f.eof):
			return nil, false // cut by the input's end, a read error, or long
		}
		// The value reached the buffer's end, where it may go on (a
		// number) or be cut: scan it again with more input.
	}
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

// fill reads more input after dropping the bytes before f.keep; false
// when there is no more (the input ended or failed), or when it would hold
// more than half the longest element (long).
func (f *arrayFramer) fill() bool {
	if f.eof || f.err != nil || f.long {
		return false
	}
	if len(f.buf)-f.keep > f.max/2 {
		f.long = true
		return false
	}
	if f.keep > 0 {
		f.lines += bytes.Count(f.buf[:f.keep], nl)
		n := copy(f.buf, f.buf[f.keep:])
		f.buf, f.pos, f.keep = f.buf[:n], f.pos-f.keep, 0
	}
	if cap(f.buf)-len(f.buf) < frameChunk/2 {
		f.buf = append(make([]byte, 0, 2*cap(f.buf)+frameChunk), f.buf...)
	}
	for {
		n, err := f.src.Read(f.buf[len(f.buf):cap(f.buf)])
		f.buf = f.buf[:len(f.buf)+n]
		switch {
		case err == io.EOF:
			f.eof = true
		case err != nil:
			f.err = err
		}
		if n > 0 || err != nil {
			return n > 0
		}
	}
}

// lineOf returns the 1-based line of f.buf[i].
func (f *arrayFramer) lineOf(i int) int {
	return f.lines + 1 + bytes.Count(f.buf[:i], nl)
}

// handOver hands the input from f.keep on to the decoder's walk at
// top-level value k.
func (f *arrayFramer) handOver(k int, open *openArray) *handOver {
	h := &handOver{k: k, lines: f.lineOf(f.keep) - 1, rest: f.buf[f.keep:], src: f.src, open: open}
	switch {
	case f.err != nil:
		h.src = errReader{f.err}
	case f.eof:
		h.src = strings.NewReader("")
	}
	return h
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
