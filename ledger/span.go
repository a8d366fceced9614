package ledger

import (
	"bytes"
	"context"
	"io"
	"strconv"
	"strings"
	"sync/atomic"
)

// Span is the part of a file a reader reads: the bytes from Offset, the
// start of a line, to End, the end of one. A file that grows by whole
// lines (a JSON Lines log, a CSV export appended to) is read on from
// where the last read stopped.
type Span struct {
	Offset, End int64
	// Line is the number of the line at Offset (1 at the file's start),
	// so that locations name the file's own lines.
	Line int
	// Head is read before the span, in place of the lines before it: a
	// CSV file's header line (with its line break); nil for JSON Lines.
	Head []byte
}

// SpanSource is the part sp of the file at path, its format detected from
// Head and the span's first bytes.
type SpanSource struct {
	path  string
	sp    Span
	opt   Options
	lines atomic.Int64
}

// NewSpanSource returns the source of the part sp of the file at path.
func NewSpanSource(path string, sp Span, opt Options) *SpanSource {
	return &SpanSource{path: path, sp: sp, opt: opt}
}

// Name is the file's path.
func (s *SpanSource) Name() string { return s.path }

// Lines returns the line breaks read in the span so far: once its Reader
// has returned io.EOF, the span's lines.
func (s *SpanSource) Lines() int64 { return s.lines.Load() }

// Open starts reading the span.
func (s *SpanSource) Open(ctx context.Context) (Reader, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, err := openInput(s.path)
	if err != nil {
		return nil, err
	}
	body := &lineCounter{r: io.NewSectionReader(f, s.sp.Offset, s.sp.End-s.sp.Offset), n: &s.lines}
	cf := &countingReader{r: io.MultiReader(bytes.NewReader(s.sp.Head), body)}
	r, err := open(ctx, s.path, cf, s.opt)
	if err != nil {
		_ = f.Close() // read only: closing it loses nothing
		return nil, err
	}
	size := int64(len(s.sp.Head)) + s.sp.End - s.sp.Offset
	var out Reader = &closingReader{meteredReader: meteredReader{Reader: r, n: cf, size: size}, c: f}
	// The reader numbers the lines of Head and the span from 1.
	if shift := s.sp.Line - 1 - bytes.Count(s.sp.Head, []byte("\n")); shift != 0 {
		out = &shiftReader{Reader: out, name: s.path, shift: shift}
	}
	return out, nil
}

// lineCounter counts the line breaks read through it.
type lineCounter struct {
	r io.Reader
	n *atomic.Int64
}

func (l *lineCounter) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	l.n.Add(int64(bytes.Count(p[:n], []byte("\n"))))
	return n, err
}

// shiftReader moves the line numbers of the rows read by shift.
type shiftReader struct {
	Reader
	name  string
	shift int
}

func (s *shiftReader) Consumed() (read, size int64) {
	if m, ok := s.Reader.(Meter); ok {
		return m.Consumed()
	}
	return 0, -1
}

func (s *shiftReader) Next(ctx context.Context, b *Batch) error {
	err := s.Reader.Next(ctx, b)
	for i := range b.Rejected {
		if b.Rejected[i].Line > 0 {
			b.Rejected[i].Line += s.shift
		}
	}
	prefix := s.name + ":"
	for i := range b.Calls {
		c := &b.Calls[i]
		if c.Source == "" && c.sourceFile != nil && *c.sourceFile == s.name {
			c.sourceLine += s.shift // a line noted, not yet text (Call.Where)
			continue
		}
		if n, perr := strconv.Atoi(strings.TrimPrefix(c.Source, prefix)); perr == nil && strings.HasPrefix(c.Source, prefix) {
			c.Source = prefix + strconv.Itoa(n+s.shift)
		}
	}
	if ie, ok := err.(*InputError); ok && ie.Line > 0 {
		moved := *ie
		moved.Line += s.shift
		return &moved
	}
	return err
}

// LineFormat tells, from the first bytes of a file, whether it can be read
// on from any line start: a CSV (with its header line, returned) or a JSON
// Lines file, neither compressed. An empty head is not yet known: false.
func LineFormat(head []byte) (header []byte, ok bool) {
	if len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b {
		return nil, false
	}
	format, err := detect(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")))
	if err != nil {
		return nil, false
	}
	switch format {
	case FormatSpendLogJSONL, FormatCanonicalJSONL, FormatCLIProxyV7JSONL:
		return nil, true
	case FormatSpendLogCSV, FormatCanonicalCSV:
		i := bytes.IndexByte(head, '\n')
		if i < 0 {
			return nil, false // the header line is not whole yet
		}
		return head[:i+1], true
	}
	return nil, false
}
