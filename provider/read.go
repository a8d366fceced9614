package provider

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/shopspring/decimal"
	"github.com/tokenfare/tokenfare/internal/numtext"
)

// ReadFile reads the export at path, its format detected from the content.
func ReadFile(ctx context.Context, path string) (*Export, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }() // read only: closing it loses nothing
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, &Error{Where: path, Err: fmt.Errorf("%w: it is a directory", ErrUnknownFormat)}
	}
	return Read(ctx, path, f)
}

// Read reads one export named name from r. JSON exports are API pages as
// the API sends them: one page, a JSON array of pages, or pages one after
// another (one per line); CSV is DeepSeek's usage export. Gzip is read as
// is.
func Read(ctx context.Context, name string, r io.Reader) (*Export, error) {
	ex, err := read(ctx, name, r)
	var tl *tooLong
	if errors.As(err, &tl) {
		return nil, &Error{Where: name, Err: ErrTooLarge}
	}
	return ex, err
}

// tooLong ends a read beyond MaxBytes, whichever reader meets it.
type tooLong struct{}

func (*tooLong) Error() string { return ErrTooLarge.Error() }

// capped reads r and fails with *tooLong after MaxBytes.
type capped struct {
	r    io.Reader
	left int64
}

func (c *capped) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, &tooLong{}
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

func read(ctx context.Context, name string, r io.Reader) (*Export, error) {
	br := bufio.NewReader(&capped{r: r, left: maxBytes + 1})
	if magic, err := br.Peek(2); err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, &Error{Where: name, Err: fmt.Errorf("%w: %w", ErrUnknownFormat, err)}
		}
		defer func() { _ = zr.Close() }() // a reader: what it reads is checked as it goes
		br = bufio.NewReader(&capped{r: zr, left: maxBytes + 1})
	}
	first, err := firstByte(br)
	if err != nil {
		return nil, &Error{Where: name, Err: fmt.Errorf("%w: %w", ErrUnknownFormat, err)}
	}
	if err := sniffBinary(br); err != nil {
		return nil, &Error{Where: name, Err: err}
	}
	if first == '{' || first == '[' {
		return readPages(ctx, name, br)
	}
	return readDeepSeek(ctx, name, br)
}

// sniffBinary refuses, by its first bytes, an input that is no text
// export: a zip (an XLSX workbook is one), a PDF, or anything with a NUL
// byte, such as /dev/zero.
func sniffBinary(br *bufio.Reader) error {
	head, _ := br.Peek(512)
	switch {
	case bytes.HasPrefix(head, []byte("PK\x03\x04")):
		return fmt.Errorf("%w: this is a zip archive (an XLSX workbook is one), not a usage export; give the CSV or JSON itself", ErrUnknownFormat)
	case bytes.HasPrefix(head, []byte("%PDF-")):
		return fmt.Errorf("%w: this is a PDF document, not a usage export", ErrUnknownFormat)
	case bytes.IndexByte(head, 0) >= 0:
		return fmt.Errorf("%w: binary content (a NUL byte), not a usage export", ErrUnknownFormat)
	}
	return nil
}

// firstByte peeks at the first byte that is not white space or a BOM.
func firstByte(br *bufio.Reader) (byte, error) {
	for i := 1; ; i++ {
		b, err := br.Peek(i)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return 0, errors.New("the file is empty")
			}
			return 0, err
		}
		c := b[i-1]
		if c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == 0xEF || c == 0xBB || c == 0xBF {
			continue
		}
		return c, nil
	}
}

// page is one page of a paged usage or cost API, OpenAI's or Anthropic's.
type page struct {
	Object string   `json:"object"`
	Data   []bucket `json:"data"`
}

// bucket is one time bucket: OpenAI's start_time/end_time (Unix seconds)
// or Anthropic's starting_at/ending_at (RFC 3339).
type bucket struct {
	StartTime  json.Number       `json:"start_time"`
	EndTime    json.Number       `json:"end_time"`
	StartingAt string            `json:"starting_at"`
	EndingAt   string            `json:"ending_at"`
	Results    []json.RawMessage `json:"results"`
}

// readPages decodes every page and converts each bucket's results.
func readPages(ctx context.Context, name string, r io.Reader) (*Export, error) {
	pages, err := decodePages(name, r)
	if err != nil {
		return nil, err
	}
	x := &Export{Name: name}
	known := false
	for pi, p := range pages {
		for bi, b := range p.Data {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			where := fmt.Sprintf("%s: data[%d]", name, bi)
			if len(pages) > 1 {
				where = fmt.Sprintf("%s: page %d data[%d]", name, pi+1, bi)
			}
			start, end, err := b.span()
			if err != nil {
				return nil, &Error{Where: where, Err: err}
			}
			for ri, raw := range b.Results {
				rw := fmt.Sprintf("%s.results[%d]", where, ri)
				f, err := resultFormat(&b, raw)
				if err != nil {
					return nil, &Error{Where: rw, Err: err}
				}
				if known && f != x.Format {
					return nil, &Error{Where: rw, Err: fmt.Errorf("%w: a %s result in a file of %s results", ErrUnknownFormat, f, x.Format)}
				}
				x.Format, known = f, true
				row, err := convert(f, raw)
				if err != nil {
					return nil, &Error{Where: rw, Err: err}
				}
				row.Format, row.Start, row.End, row.Where = f, start, end, rw
				x.Rows = append(x.Rows, row)
			}
		}
	}
	if !known && len(pages) > 0 && pages[0].Object != "page" && len(pages[0].Data) == 0 {
		return nil, &Error{Where: name, Err: fmt.Errorf("%w: no usage or cost buckets", ErrUnknownFormat)}
	}
	return x, nil
}

// decodePages reads one page, an array of pages, or pages one after
// another. Numbers stay text.
func decodePages(name string, r io.Reader) ([]page, error) {
	dec := json.NewDecoder(r)
	dec.UseNumber()
	var pages []page
	for {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, &Error{Where: name, Err: fmt.Errorf("%w: %w", ErrUnknownFormat, err)}
		}
		raw = bytes.TrimSpace(raw)
		if len(raw) > 0 && raw[0] == '[' {
			var ps []page
			if err := unmarshal(raw, &ps); err != nil {
				return nil, &Error{Where: name, Err: fmt.Errorf("%w: %w", ErrUnknownFormat, err)}
			}
			pages = append(pages, ps...)
			continue
		}
		var p page
		if err := unmarshal(raw, &p); err != nil {
			return nil, &Error{Where: name, Err: fmt.Errorf("%w: %w", ErrUnknownFormat, err)}
		}
		pages = append(pages, p)
	}
	if len(pages) == 0 {
		return nil, &Error{Where: name, Err: fmt.Errorf("%w: no page", ErrUnknownFormat)}
	}
	return pages, nil
}

func unmarshal(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return dec.Decode(v)
}

// span reads a bucket's bounds and checks that it lies within one UTC day.
func (b *bucket) span() (start, end time.Time, err error) {
	switch {
	case b.StartTime != "":
		s, err1 := strconv.ParseInt(string(b.StartTime), 10, 64)
		e, err2 := strconv.ParseInt(string(b.EndTime), 10, 64)
		if err1 != nil || err2 != nil {
			return start, end, fmt.Errorf("%w: start_time %q, end_time %q are not Unix seconds", ErrBadValue, b.StartTime, b.EndTime)
		}
		start, end = time.Unix(s, 0).UTC(), time.Unix(e, 0).UTC()
	case b.StartingAt != "":
		var err1, err2 error
		start, err1 = time.Parse(time.RFC3339Nano, b.StartingAt)
		end, err2 = time.Parse(time.RFC3339Nano, b.EndingAt)
		if err1 != nil || err2 != nil {
			return start, end, fmt.Errorf("%w: starting_at %q, ending_at %q are not RFC 3339 instants", ErrBadValue, b.StartingAt, b.EndingAt)
		}
		start, end = start.UTC(), end.UTC()
	default:
		return start, end, fmt.Errorf("%w: a bucket without start_time or starting_at", ErrUnknownFormat)
	}
	return start, end, checkSpan(start, end)
}

// checkSpan accepts a bucket [start, end) within one UTC day.
func checkSpan(start, end time.Time) error {
	day := start.Truncate(24 * time.Hour)
	if !end.After(start) || end.After(day.Add(24*time.Hour)) {
		return fmt.Errorf("%w: %s to %s (ask the API for buckets of 1d, 1h or 1m from a UTC midnight)", ErrBucket,
			start.Format(time.RFC3339), end.Format(time.RFC3339))
	}
	return nil
}

// resultFormat tells the format of one result from its fields.
func resultFormat(b *bucket, raw json.RawMessage) (Format, error) {
	var probe struct {
		Object  string          `json:"object"`
		Amount  json.RawMessage `json:"amount"`
		Uncache json.RawMessage `json:"uncached_input_tokens"`
	}
	if err := unmarshal(raw, &probe); err != nil {
		return 0, fmt.Errorf("%w: %w", ErrUnknownFormat, err)
	}
	switch {
	case probe.Object == "organization.usage.completions.result":
		return OpenAIUsage, nil
	case probe.Object == "organization.costs.result":
		return OpenAICosts, nil
	case strings.HasPrefix(probe.Object, "organization.usage."):
		return 0, fmt.Errorf("%w: %s results (only completions usage is read)", ErrUnknownFormat, probe.Object)
	case b.StartingAt != "" && probe.Uncache != nil:
		return AnthropicUsage, nil
	case b.StartingAt != "" && probe.Amount != nil:
		return AnthropicCost, nil
	}
	return 0, fmt.Errorf("%w: a result that is neither usage nor cost", ErrUnknownFormat)
}

// convert reads one result in format f.
func convert(f Format, raw json.RawMessage) (Row, error) {
	switch f {
	case OpenAIUsage:
		return openAIUsage(raw)
	case OpenAICosts:
		return openAICost(raw)
	case AnthropicUsage:
		return anthropicUsage(raw)
	}
	return anthropicCost(raw)
}

// count reads a token or request count; null or absent is zero.
func count(field string, n json.Number) (int64, error) {
	if n == "" {
		return 0, nil
	}
	v, err := strconv.ParseInt(string(n), 10, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("%w: %s %q is not a non-negative integer", ErrBadValue, field, string(n))
	}
	return v, nil
}

// amount reads money from its text.
func amount(field, s string) (decimal.Decimal, error) {
	d, err := numtext.Decimal(s)
	if errors.Is(err, numtext.ErrTooLong) {
		return d, fmt.Errorf("%w: %s (%d characters) is too long: %v", ErrBadValue, field, len(s), err)
	}
	if errors.Is(err, numtext.ErrOutOfRange) {
		return d, fmt.Errorf("%w: %s %q is out of range: %v", ErrBadValue, field, s, err)
	}
	if err != nil {
		return d, fmt.Errorf("%w: %s %q is not a decimal number", ErrBadValue, field, s)
	}
	return d, nil
}

// str returns a nullable string's value, "" for null.
func str(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
