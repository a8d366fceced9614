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
)

// DefaultCount is how many records one request asks for.
const DefaultCount = 500

// maxPops bounds the requests of one Collect, so that a queue filled as
// fast as it is popped still lets the caller count what was written.
const maxPops = 100

// maxAnswer is the largest answer read: far above DefaultCount records.
const maxAnswer = 256 << 20

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
}

// Error is a request the server refused or answered with no records.
type Error struct {
	Status int // the HTTP status, 0 when the answer was not records
	Msg    string
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
	return nil
}

// Collect pops the queue until an answer holds fewer records than asked
// (the queue is empty), appending each answer's records to the file and
// syncing it before the next request. It returns the records written,
// also when it fails after some were.
func (c *Collector) Collect(ctx context.Context) (int, error) {
	f, err := c.open()
	if err != nil {
		return 0, err
	}
	defer f.Close()
	count := c.Count
	if count <= 0 {
		count = DefaultCount
	}
	written := 0
	for range maxPops {
		records, err := c.pop(ctx, count)
		if len(records) > 0 {
			if werr := appendRecords(f, records); werr != nil {
				return written, fmt.Errorf("CLIProxyAPI usage queue: %d records popped and not written to %s: %w", len(records), c.File, werr)
			}
			written += len(records)
		}
		if err != nil {
			return written, err
		}
		if len(records) < count {
			break
		}
	}
	return written, nil
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
		f.Close()
		return nil, fmt.Errorf("CLIProxyAPI usage queue: %s: %w", c.File, err)
	}
	return f, nil
}

// pop asks for count records.
func (c *Collector) pop(ctx context.Context, count int) ([]json.RawMessage, error) {
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
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return nil, fmt.Errorf("CLIProxyAPI usage queue: read the answer: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, &Error{Status: resp.StatusCode, Msg: firstLine(body)}
	}
	var records []json.RawMessage
	if err := json.Unmarshal(body, &records); err != nil {
		// The records of this answer are popped: keep them for whoever
		// looks, rather than lose them.
		return []json.RawMessage{body}, &Error{Msg: "the answer is not an array of records (kept as one line): " + err.Error()}
	}
	return records, nil
}

// appendRecords writes one line per record and syncs the file.
func appendRecords(f *os.File, records []json.RawMessage) error {
	var b bytes.Buffer
	for _, r := range records {
		if err := json.Compact(&b, r); err != nil {
			b.Write(bytes.ReplaceAll(r, []byte("\n"), []byte(" ")))
		}
		b.WriteByte('\n')
	}
	if _, err := f.Write(b.Bytes()); err != nil {
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
