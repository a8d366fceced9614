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
)

// pushReader turns a producer that walks its input into a Reader. The
// producer runs in its own goroutine and hands over full batches.
type pushReader struct {
	name   string
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

func newPushReader(name, format string, opt Options, produce func(e *emitter) error) *pushReader {
	r := &pushReader{name: name, format: format, ch: make(chan pushMsg, 2), done: make(chan struct{})}
	e := &emitter{r: r, b: &Batch{}, size: opt.withDefaults().BatchSize}
	go func() {
		defer close(r.ch)
		err := inputError(name, 0, produce(e))
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

// Close stops the producer.
func (r *pushReader) Close() error {
	r.once.Do(func() { close(r.done) })
	return nil
}

// Next refills b with the next batch.
func (r *pushReader) Next(ctx context.Context, b *Batch) error {
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
		r.Close()
		return r.err
	}
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
		c.RequestID, c.Identity, c.IdentityHash = id, id, HashIdentity(id)
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
func produceArray(src io.Reader, rec recordFunc) func(e *emitter) error {
	return func(e *emitter) error {
		dec := json.NewDecoder(src)
		dec.UseNumber()
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		if tok == json.Delim('[') {
			return walkArray(e, dec, "", rec)
		}
		for dec.More() {
			key, err := dec.Token()
			if err != nil {
				return err
			}
			if key == "data" {
				if t, err := dec.Token(); err != nil || t != json.Delim('[') {
					return errors.New(`"data" is not an array`)
				}
				if err := walkArray(e, dec, "data", rec); err != nil {
					return err
				}
				continue
			}
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return err
			}
		}
		return nil
	}
}

// walkArray reads the elements of an array whose '[' has been read;
// prefix names the array within the input ("" for the top level).
func walkArray(e *emitter, dec *json.Decoder, prefix string, rec recordFunc) error {
	for i := 0; dec.More(); i++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return fmt.Errorf("element %s: %w", elementWhere(prefix, i, ""), err)
		}
		var c Call
		id, reason := rec(&e.p, raw, &c)
		item := elementWhere(prefix, i, id)
		var err error
		if reason != "" {
			err = e.reject(item, 0, reason)
		} else {
			c.Source = e.where(item, 0)
			err = e.call(&c)
		}
		if err != nil {
			return err
		}
	}
	_, err := dec.Token()
	return err
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
