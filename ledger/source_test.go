package ledger

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestFileSourceErrors checks that opening a file source says what is
// wrong in fields and sentinels, not only in text.
func TestFileSourceErrors(t *testing.T) {
	dir := t.TempDir()
	header := filepath.Join(dir, "bad-header.csv")
	if err := os.WriteFile(header, []byte("\n\nrequest_id,startTime,spend\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		path string
		want error
		line int
	}{
		{"a directory", dir, ErrNotAFile, 0},
		{"a missing file", filepath.Join(dir, "nope.csv"), fs.ErrNotExist, 0},
		{"a header lacking columns, after two blank lines", header, ErrBadHeader, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := FileSource(tt.path, Options{})
			_, err := src.Open(context.Background())
			var ie *InputError
			if !errors.As(err, &ie) || !errors.Is(err, tt.want) {
				t.Fatalf("Open error = %v, want an *InputError wrapping %v", err, tt.want)
			}
			if ie.File != tt.path || ie.Line != tt.line || src.Name() != tt.path {
				t.Errorf("error names %s line %d, want %s line %d", ie.File, ie.Line, tt.path, tt.line)
			}
			if strings.Count(err.Error(), tt.path) != 1 {
				t.Errorf("error %q should name the file once", err)
			}
		})
	}
}

// slowReader hands out data a little at a time, then blocks on each read
// until the test ends, like a pipe whose writer went quiet.
type slowReader struct {
	data []byte
	quit chan struct{}
}

func (r *slowReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		<-r.quit
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), 512)], r.data)
	r.data = r.data[n:]
	return n, nil
}

// TestCancelStopsReading cancels the context while a reader waits for
// input: Next returns the context's error at once, for CSV and JSON lines.
func TestCancelStopsReading(t *testing.T) {
	t.Run("while detecting the format", func(t *testing.T) {
		quit := make(chan struct{})
		defer close(quit)
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		_, err := StreamSource("slow", &slowReader{data: []byte("start,model"), quit: quit}, Options{}).Open(ctx)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Open = %v, want the context's error", err)
		}
	})
	var csv bytes.Buffer
	writeFlatCSV(&csv, 2000)
	inputs := map[string][]byte{ // each more than detection peeks at
		"csv":   csv.Bytes(),
		"jsonl": bytes.Repeat([]byte(`{"start":"2026-01-01T00:00:00Z","model":"m","input_tokens":1}`+"\n"), 2000),
	}
	for name, data := range inputs {
		t.Run(name, func(t *testing.T) {
			quit := make(chan struct{})
			defer close(quit)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			r, err := StreamSource("slow", &slowReader{data: data, quit: quit}, Options{Workers: 1}).Open(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			time.AfterFunc(50*time.Millisecond, cancel)
			var b Batch
			start := time.Now()
			for {
				err = r.Next(ctx, &b)
				if err != nil {
					break
				}
			}
			if !errors.Is(err, context.Canceled) {
				t.Errorf("Next = %v, want context.Canceled", err)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("Next took %v to notice the cancellation", d)
			}
		})
	}
}

// failingReader fails with an I/O error after its data.
type failingReader struct{ data []byte }

func (r *failingReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, errors.New("input/output error")
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

// TestReadFailureIsNotBadContent checks that an I/O error mid-stream is
// ErrRead, in an *InputError naming the input.
func TestReadFailureIsNotBadContent(t *testing.T) {
	var csv bytes.Buffer
	writeFlatCSV(&csv, 2000)
	inputs := map[string][]byte{
		"csv":   csv.Bytes(),
		"jsonl": bytes.Repeat([]byte(`{"start":"2026-01-01T00:00:00Z","model":"m","input_tokens":1}`+"\n"), 2000),
		"json":  []byte(`[{"start":"2026-01-01T00:00:00Z","model":"m","input_tokens":1},`),
	}
	for name, data := range inputs {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			r, err := StreamSource("disk", &failingReader{data: data}, Options{}).Open(ctx)
			if err == nil { // short inputs fail already while their format is detected
				defer r.Close()
				var b Batch
				for err == nil {
					err = r.Next(ctx, &b)
				}
			}
			var ie *InputError
			if !errors.Is(err, ErrRead) || !errors.As(err, &ie) || ie.File != "disk" {
				t.Errorf("Next = %v, want ErrRead in an *InputError for disk", err)
			}
		})
	}
}

// TestMeterCountsTheInput checks that file and stream sources tell the
// bytes read of their input, compressed bytes for gzip, against the file's
// size, or an unknown size for a stream.
func TestMeterCountsTheInput(t *testing.T) {
	gz, err := os.ReadFile("testdata/spendlogs_flat.csv.gz")
	if err != nil {
		t.Fatal(err)
	}
	csv, err := os.ReadFile("testdata/spendlogs_flat.csv")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		src      Source
		wantRead int64
		wantSize int64
	}{
		{name: "file", src: FileSource("testdata/spendlogs_flat.csv", Options{}), wantRead: int64(len(csv)), wantSize: int64(len(csv))},
		{name: "gzip file counts compressed bytes", src: FileSource("testdata/spendlogs_flat.csv.gz", Options{}), wantRead: int64(len(gz)), wantSize: int64(len(gz))},
		{name: "stream of unknown size", src: StreamSource("stdin", bytes.NewReader(csv), Options{}), wantRead: int64(len(csv)), wantSize: -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := tt.src.Open(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
			m, ok := in.(Meter)
			if !ok {
				t.Fatalf("%T is not a Meter", in)
			}
			var b Batch
			for {
				err := in.Next(context.Background(), &b)
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			if read, size := m.Consumed(); read != tt.wantRead || size != tt.wantSize {
				t.Errorf("Consumed() = %d, %d; want %d, %d", read, size, tt.wantRead, tt.wantSize)
			}
		})
	}
}
