// Package usagequeue pops CLIProxyAPI's v7 usage queue over its
// management API (GET /v0/management/usage-queue?count=N) into a JSON
// Lines file, one record a line, as the server answered it.
//
// The queue is popped destructively and keeps a record only a short while
// (60 seconds by default, at most an hour; none across a restart of the
// server): a record popped is in no other place. So every answer is
// appended to the file and synced to disk before the next pop, and
// nothing reads a record but from the file: a process killed after a pop
// loses at most the answer in flight, never a record it had written.
//
// # Invariants
//
//   - Each record of an answer is one line of the file, in the answer's
//     order (the oldest first), compacted, with its line break; the file
//     is synced before Collect pops again or returns.
//   - Only an array of JSON objects is written. Any other answer (an HTML
//     error page, an object) is written to a file beside, named by the
//     time it came (File.rejected-<UTC time>), and Collect returns an
//     error naming it: the records file holds only records.
//   - An answer is read as it comes, and refused past RecordBound bytes
//     a record asked for (kept aside as far as it was read): memory stays
//     bounded whatever the server sends.
//   - Records popped are on disk before the next pop, or held in memory:
//     an answer that cannot be written (a full disk) is kept, the file cut
//     back to its size before, and written first at the next Collect,
//     which pops nothing before. Held says how many wait.
//   - A file left ending inside a line (a write cut short) gets a line
//     break before the next record, so the cut line stays alone (rejected
//     when read) and no record is glued to it.
package usagequeue

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// DefaultCount is how many records one request asks for.
const DefaultCount = 500

// maxPops bounds the requests of one Collect, so that a queue filled as
// fast as it is popped still lets the caller count what was written.
const maxPops = 100

// RecordBound is the room an answer is given per record asked: a record
// of a real queue takes about 1.3 KiB, its error body and headers
// included. An answer past Count records of RecordBound each is refused
// (DefaultCount: 32 MiB), so memory stays bounded and every line written
// is one the call log readers read back (they take lines of 64 MiB).
const RecordBound = 64 << 10

// Collector pops one CLIProxyAPI's usage queue into a file.
type Collector struct {
	// URL is the server's base URL ("http://127.0.0.1:8317"); the
	// management route is added to it.
	URL string
	// Key is the management key, sent as "Authorization: Bearer".
	Key string
	// File is the JSON Lines file the records are appended to.
	File string
	// Count is how many records a request asks for; 0 means DefaultCount.
	Count int
	// Client makes the requests; nil means http.DefaultClient.
	Client *http.Client
	// Now names the file an answer that is not records is kept in; nil
	// means time.Now.
	Now func() time.Time

	held      bytes.Buffer // records popped and not yet written, a line each
	heldN     int          // how many
	heldCount atomic.Int64 // heldN, for Held
}

// Error is a request the server refused or answered with no records.
type Error struct {
	Status int // the HTTP status, 0 when the answer was not records
	Msg    string
	err    error // why the answer is not records (ErrTooLarge), or nil
}

func (e *Error) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("CLIProxyAPI usage queue: HTTP %d: %s", e.Status, e.Msg)
	}
	return "CLIProxyAPI usage queue: " + e.Msg
}

// ErrUnauthorized is inside the Error of a request the server refused for
// its key (401, 403).
var ErrUnauthorized = errors.New("the management key is refused")

func (e *Error) Unwrap() error {
	if e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden {
		return ErrUnauthorized
	}
	return e.err
}

// Collect pops the queue until an answer holds fewer records than asked
// (the queue is empty), appending each answer's records to the file and
// syncing it before the next request. It returns the records written,
// also when it fails after some were.
//
// Records popped that cannot be written (a full disk) are held in memory
// (Held) and nothing more is popped: each Collect writes them first, and
// pops again only once they are on disk.
func (c *Collector) Collect(ctx context.Context) (written int, err error) {
	f, err := c.open()
	if err != nil {
		return 0, err
	}
	defer func() {
		if cerr := f.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("CLIProxyAPI usage queue: %w", cerr)
		}
	}()
	written, err = c.writeHeld(f)
	if err != nil {
		return 0, err
	}
	count := c.Count
	if count <= 0 {
		count = DefaultCount
	}
	for range maxPops {
		ans, err := c.pop(ctx, count)
		if err != nil {
			return written, err
		}
		if ans.n > 0 {
			c.held, c.heldN = ans.lines, ans.n
			c.heldCount.Store(int64(ans.n))
			n, err := c.writeHeld(f)
			if err != nil {
				return written, err
			}
			written += n
		}
		if ans.n < count {
			break
		}
	}
	return written, nil
}

// Held returns how many records popped are held in memory, not yet
// written to the file. It may be called while Collect runs.
func (c *Collector) Held() int { return int(c.heldCount.Load()) }

// writeHeld appends the records held to f and syncs it, returning how
// many it wrote. On a failure the file is cut back to its size before
// (no record is written in part, or twice) and the records stay held.
func (c *Collector) writeHeld(f *os.File) (int, error) {
	if c.heldN == 0 {
		return 0, nil
	}
	size, err := f.Seek(0, io.SeekEnd)
	if err == nil {
		err = appendLines(f, c.held.Bytes())
		// Cut back only to a size Seek gave: it gives 0 when it fails.
		if err != nil {
			if terr := f.Truncate(size); terr != nil {
				err = fmt.Errorf("%w; cutting the file back to %d bytes failed too: %w", err, size, terr)
			}
		}
	}
	if err != nil {
		return 0, fmt.Errorf("CLIProxyAPI usage queue: %d records popped are held in memory, not written to %s (no more is popped until they are): %w",
			c.heldN, c.File, err)
	}
	n := c.heldN
	c.held, c.heldN = bytes.Buffer{}, 0
	c.heldCount.Store(0)
	return n, nil
}

// open opens the file for appending, ending a line left cut short.
func (c *Collector) open() (*os.File, error) {
	f, err := os.OpenFile(c.File, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("CLIProxyAPI usage queue: %w", err)
	}
	st, err := f.Stat()
	if err == nil && st.Size() > 0 {
		last := make([]byte, 1)
		if _, err = f.ReadAt(last, st.Size()-1); err == nil && last[0] != '\n' {
			_, err = f.Write([]byte("\n"))
		}
	}
	if err != nil {
		_ = f.Close() // the error above is the one reported
		return nil, fmt.Errorf("CLIProxyAPI usage queue: %s: %w", c.File, err)
	}
	return f, nil
}

// pop asks for count records and returns them, a compacted line each.
// An answer that is not an array of JSON values is not returned: it is
// kept aside (keepAside) and the error names the file.
func (c *Collector) pop(ctx context.Context, count int) (*answer, error) {
	resp, err := c.get(ctx, count)
	if err != nil {
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }() // read only: closing it loses nothing
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		return nil, &Error{Status: resp.StatusCode, Msg: firstLine(body)}
	}
	var raw bytes.Buffer
	bound := int64(count) * RecordBound
	ans, err := readAnswer(io.TeeReader(&boundedReader{r: resp.Body, left: bound, bound: bound}, &raw))
	if err != nil {
		// The records of this answer are popped: keep the answer for
		// whoever looks, rather than lose it or write it among records.
		return nil, c.keepAside(raw.Bytes(), err)
	}
	return ans, nil
}

// get sends the request for count records.
func (c *Collector) get(ctx context.Context, count int) (*http.Response, error) {
	u, err := url.Parse(strings.TrimRight(c.URL, "/") + "/v0/management/usage-queue")
	if err != nil {
		return nil, &Error{Msg: "the URL: " + err.Error()}
	}
	u.RawQuery = url.Values{"count": {strconv.Itoa(count)}}.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, &Error{Msg: err.Error()}
	}
	req.Header.Set("Authorization", "Bearer "+c.Key)
	client := c.Client
	if client == nil {
		client = http.DefaultClient
	}
	return client.Do(req)
}

// ErrTooLarge is inside the Error of an answer larger than its records
// can be (RecordBound).
var ErrTooLarge = errors.New("the answer is larger than the records asked for can be")

// boundedReader reads r and fails with ErrTooLarge past bound bytes.
type boundedReader struct {
	r           io.Reader
	left, bound int64
}

func (b *boundedReader) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, fmt.Errorf("%w (%d bytes)", ErrTooLarge, b.bound)
	}
	n, err := b.r.Read(p[:min(int64(len(p)), b.left)])
	b.left -= int64(n)
	return n, err
}

// answer is the records of one answer, a compacted line each.
type answer struct {
	lines bytes.Buffer
	n     int
}

// readAnswer reads a JSON array of values from r, compacting each into a
// line.
func readAnswer(r io.Reader) (*answer, error) {
	dec := json.NewDecoder(r)
	ans := &answer{}
	t, err := dec.Token()
	if err == nil && t == nil {
		return ans, end(dec) // null: no records
	}
	if err != nil || t != json.Delim('[') {
		return nil, notArray(t, err)
	}
	for dec.More() {
		var rec json.RawMessage
		if err := dec.Decode(&rec); err != nil {
			return nil, fmt.Errorf("record %d: %w", ans.n+1, err)
		}
		if rec[0] != '{' {
			return nil, fmt.Errorf("record %d is %.40s, not an object", ans.n+1, rec)
		}
		if err := json.Compact(&ans.lines, rec); err != nil {
			return nil, fmt.Errorf("record %d: %w", ans.n+1, err)
		}
		ans.lines.WriteByte('\n')
		ans.n++
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("after record %d: %w", ans.n, err)
	}
	return ans, end(dec)
}

// end checks that nothing but white space follows the answer's value.
func end(dec *json.Decoder) error {
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("more follows the array")
	}
	return nil
}

// notArray says why an answer's first token does not open an array.
func notArray(t json.Token, err error) error {
	if err != nil {
		return err
	}
	if d, ok := t.(json.Delim); ok && d == '{' {
		return errors.New("an object, not an array of records")
	}
	return fmt.Errorf("%v, not an array of records", t)
}

// keepAside writes an answer that is not records to a file beside the
// records file, named by the time it came (File.rejected-<UTC time>),
// and returns the error that says where it is.
func (c *Collector) keepAside(body []byte, why error) error {
	now := time.Now
	if c.Now != nil {
		now = c.Now
	}
	path := c.File + ".rejected-" + now().UTC().Format("20060102T150405.000000000Z")
	if err := os.WriteFile(path, body, 0o600); err != nil {
		return &Error{Msg: fmt.Sprintf("the answer is not records (%v), and could not be kept aside: %v", why, err), err: why}
	}
	return &Error{Msg: fmt.Sprintf("the answer is not records (%v): its %d bytes read are kept in %s, apart from the records", why, len(body), path), err: why}
}

// appendLines writes the lines and syncs the file.
func appendLines(f *os.File, lines []byte) error {
	if _, err := f.Write(lines); err != nil {
		return err
	}
	return f.Sync()
}

// firstLine is the start of an error answer, for the message.
func firstLine(b []byte) string {
	s := strings.TrimSpace(string(b))
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}
