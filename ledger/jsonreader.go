package ledger

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
)

// pushReader turns a producer that walks its input into a Reader. The
// producer runs in its own goroutine and hands over full batches.
type pushReader struct {
	format string
	ch     chan pushMsg
	done   chan struct{}
	once   sync.Once
	err    error
}

type pushMsg struct {
	b   *Batch
	err error
}

// emitter collects a producer's rows into batches.
type emitter struct {
	r    *pushReader
	b    *Batch
	size int
	p    rowParser
}

func newPushReader(format string, opt Options, produce func(e *emitter) error) *pushReader {
	r := &pushReader{format: format, ch: make(chan pushMsg, 2), done: make(chan struct{})}
	e := &emitter{r: r, b: &Batch{}, size: opt.withDefaults().BatchSize}
	go func() {
		defer close(r.ch)
		err := produce(e)
		if !e.flush() {
			return
		}
		if err != nil {
			select {
			case r.ch <- pushMsg{err: err}:
			case <-r.done:
			}
		}
	}()
	return r
}

// Format names the detected format.
func (r *pushReader) Format() string { return r.format }

// Close stops the producer. It is needed only when the caller stops
// before Next returns io.EOF.
func (r *pushReader) Close() error {
	r.once.Do(func() { close(r.done) })
	return nil
}

// Next refills b with the next batch.
func (r *pushReader) Next(b *Batch) error {
	b.Reset()
	if r.err != nil {
		return r.err
	}
	m, ok := <-r.ch
	switch {
	case !ok:
		r.err = io.EOF
	case m.err != nil:
		r.err = m.err
	default:
		*b = *m.b
		return nil
	}
	r.Close()
	return r.err
}

// errStopped ends a producer whose reader was closed, and is what Next
// returns after Close.
var errStopped = errors.New("reader closed")

func (e *emitter) flush() bool {
	if e.b.Rows == 0 {
		return true
	}
	select {
	case e.r.ch <- pushMsg{b: e.b}:
		e.b = &Batch{}
		return true
	case <-e.r.done:
		return false
	}
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

func (e *emitter) reject(where, reason string) error {
	e.b.Rejected = append(e.b.Rejected, Rejection{Where: where, Reason: reason})
	e.b.Rows++
	return e.full()
}

// recordFunc turns one JSON value into c. It returns the request id (for
// locations; may be empty) and why the value is rejected ("" if not). It
// sets everything but Source.
type recordFunc func(p *rowParser, raw []byte, c *Call) (requestID, reason string)

// schemaRecord reads a JSON object whose members are a schema's columns.
func schemaRecord(s *schema) recordFunc {
	return func(p *rowParser, raw []byte, c *Call) (string, string) {
		var v rowFields
		var set [maxCols]bool
		// Members in document order; when two names map to one column the
		// first wins, as with CSV headers.
		err := eachMember(raw, func(k string, m json.RawMessage) {
			if i := s.index(k); i >= 0 && !set[i&(maxCols-1)] {
				set[i&(maxCols-1)] = true
				v.add(i, jsonText(m))
			}
		})
		if err != nil {
			return "", "not a JSON object: " + strings.TrimPrefix(err.Error(), "json: ")
		}
		id := string(v.get(s.requestID))
		if reason := buildChecked(s.build(s, p, &v, c), c); reason != "" {
			return id, reason
		}
		c.RequestID, c.Identity = id, id
		return id, ""
	}
}

// eachMember calls fn for each member of the JSON object raw, in order.
func eachMember(raw []byte, fn func(key string, value json.RawMessage)) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil {
		return err
	} else if tok != json.Delim('{') {
		return fmt.Errorf("found %v", tok)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		var m json.RawMessage
		if err := dec.Decode(&m); err != nil {
			return err
		}
		fn(tok.(string), m)
	}
	if _, err := dec.Token(); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("text after the object")
	}
	return nil
}

// jsonText returns a JSON value as column text: strings unquoted, null
// empty, anything else (numbers, objects) as written.
func jsonText(m json.RawMessage) []byte {
	m = bytes.TrimSpace(m)
	switch {
	case len(m) == 0 || string(m) == "null":
		return nil
	case m[0] == '"':
		var s string
		if json.Unmarshal(m, &s) != nil {
			return m
		}
		return []byte(s)
	}
	return m
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
// "data" key of a top-level object (LiteLLM /spend/logs/v2 pages).
func produceArray(name string, src io.Reader, rec recordFunc) func(e *emitter) error {
	return func(e *emitter) error {
		dec := json.NewDecoder(src)
		dec.UseNumber()
		tok, err := dec.Token()
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if tok == json.Delim('[') {
			return walkArray(e, dec, name, name, rec)
		}
		for dec.More() {
			key, err := dec.Token()
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			if key == "data" {
				if t, err := dec.Token(); err != nil || t != json.Delim('[') {
					return fmt.Errorf("%s: \"data\" is not an array", name)
				}
				if err := walkArray(e, dec, name, name+": data", rec); err != nil {
					return err
				}
				continue
			}
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
		}
		return nil
	}
}

// walkArray reads the elements of an array whose '[' has been read.
func walkArray(e *emitter, dec *json.Decoder, name, prefix string, rec recordFunc) error {
	for i := 0; dec.More(); i++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return fmt.Errorf("%s: %w", elementWhere(prefix, i, ""), err)
		}
		var c Call
		id, reason := rec(&e.p, raw, &c)
		where := elementWhere(prefix, i, id)
		var err error
		if reason != "" {
			err = e.reject(where, reason)
		} else {
			c.Source = where
			err = e.call(&c)
		}
		if err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// maxLine bounds one JSON line; longer lines are rejected and skipped.
const maxLine = 64 << 20

// produceLines reads one JSON record per line. Blank lines are skipped;
// a line that is not valid JSON is rejected and reading goes on.
func produceLines(name string, br *bufio.Reader, rec recordFunc) func(e *emitter) error {
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
				return fmt.Errorf("read %s: %w", name, err)
			}
			if t := bytes.TrimSpace(line); len(t) > 0 {
				if rerr := lineRecord(e, name, n, t, tooLong, rec); rerr != nil {
					return rerr
				}
			}
			if err != nil {
				return nil
			}
		}
	}
}

func lineRecord(e *emitter, name string, n int, line []byte, tooLong bool, rec recordFunc) error {
	where := name + ":" + strconv.Itoa(n)
	if tooLong {
		return e.reject(where, fmt.Sprintf("line longer than %d bytes", maxLine))
	}
	if !json.Valid(line) {
		return e.reject(where, "not valid JSON")
	}
	var c Call
	if _, reason := rec(&e.p, line, &c); reason != "" {
		return e.reject(where, reason)
	}
	c.Source = where
	return e.call(&c)
}
