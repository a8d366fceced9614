package ledger

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestLineFormat: the formats that can be read on from a line's start,
// and the header a CSV file's lines need before them.
func TestLineFormat(t *testing.T) {
	tests := []struct {
		name   string
		head   string
		header string
		ok     bool
	}{
		{name: "spend log CSV", head: "request_id,startTime,model\nr1,2026-10-01T00:00:00Z,m\n", header: "request_id,startTime,model\n", ok: true},
		{name: "CSV with a BOM", head: "\xef\xbb\xbfrequest_id,startTime\nr1,x\n", header: "\xef\xbb\xbfrequest_id,startTime\n", ok: true},
		{name: "CSV header not whole yet", head: "request_id,startTi", ok: false},
		{name: "canonical JSON Lines", head: `{"start":"2026-10-01T00:00:00Z","model":"m","input_tokens":1}` + "\n", ok: true},
		{name: "CLIProxyAPI v7 records, one a line", head: `{"timestamp":"2026-12-01T13:25:21Z","tokens":{}}` + "\n", ok: true},
		{name: "JSON array", head: `[{"startTime":"2026-10-01T00:00:00Z"}]`, ok: false},
		{name: "CLIProxyAPI v6 export", head: `{"version":1,"usage":{"apis":{}}}`, ok: false},
		{name: "gzip", head: "\x1f\x8b\x08\x00", ok: false},
		{name: "empty", head: "", ok: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			header, ok := LineFormat([]byte(tt.head))
			if ok != tt.ok || string(header) != tt.header {
				t.Errorf("LineFormat = %q, %v; want %q, %v", header, ok, tt.header, tt.ok)
			}
		})
	}
}

// TestSpanSource reads the lines of a CSV file past its first data line,
// the header read before them: the calls and rejected rows are named by
// their lines in the file, and the span's line breaks are counted.
func TestSpanSource(t *testing.T) {
	header := "request_id,startTime,endTime,model,prompt_tokens,completion_tokens,spend\n"
	lines := []string{
		"a,2026-10-01T00:00:00Z,2026-10-01T00:00:01Z,gpt-4o,10,5,0.1\n",
		"b,2026-10-01T00:01:00Z,2026-10-01T00:01:01Z,gpt-4o,10,5,0.1\n",
		"c,yesterday,2026-10-01T00:02:01Z,gpt-4o,10,5,0.1\n",
		"d,2026-10-01T00:03:00Z,2026-10-01T00:03:01Z,gpt-4o,10,5,0.1\n",
	}
	text := header
	for _, l := range lines {
		text += l
	}
	path := filepath.Join(t.TempDir(), "spend.csv")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	// From line 3 (b) to the end.
	off := int64(len(header) + len(lines[0]))
	src := NewSpanSource(path, Span{Offset: off, End: int64(len(text)), Line: 3, Head: []byte(header)}, Options{})
	r, err := src.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var got []string
	var b Batch
	for {
		err := r.Next(context.Background(), &b)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range b.Calls {
			got = append(got, c.RequestID+"@"+c.Where())
		}
		for _, rej := range b.Rejected {
			got = append(got, "rejected@"+rej.Where())
		}
	}
	want := map[string]bool{"b@" + path + ":3": true, "rejected@" + path + ":4": true, "d@" + path + ":5": true}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for _, g := range got {
		if !want[g] {
			t.Errorf("got %s, want one of %v", g, want)
		}
	}
	if src.Lines() != 3 {
		t.Errorf("Lines() = %d, want the span's 3", src.Lines())
	}
}
