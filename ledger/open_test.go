package ledger

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

// result is everything a Reader produced, in a form golden files hold.
type result struct {
	Format   string
	Rows     int
	Calls    []goldenCall
	Rejected []goldenRejection
	Err      string `json:",omitempty"`
}

// goldenRejection is a Rejection as golden files hold it.
type goldenRejection struct {
	Where  string
	Reason string
}

type goldenCall struct {
	RequestID  string
	Identity   string
	Gateway    Gateway
	Start      string
	FirstToken string `json:",omitempty"`
	End        string `json:",omitempty"`
	Key        string `json:",omitempty"`
	KeyAlias   string `json:",omitempty"`
	Team       string `json:",omitempty"`
	User       string `json:",omitempty"`
	Model      string `json:",omitempty"`
	ModelGroup string `json:",omitempty"`
	Deployment string `json:",omitempty"`
	Provider   string `json:",omitempty"`
	Host       string `json:",omitempty"`
	PriceKey   string `json:",omitempty"`
	Status     string
	Recorded   string
	Tokens     goldenTokens
	Tools      map[string]int64 `json:",omitempty"`
	Tier       string           `json:",omitempty"`
	Region     string           `json:",omitempty"`
	Source     string
}

// goldenTokens are a call's tokens, the 1-hour writes only when there are
// some (files older than them stay as they were).
type goldenTokens struct {
	Input        int64
	CacheRead    int64
	CacheWrite   int64
	CacheWrite1h int64 `json:",omitempty"`
	Output       int64
	Reasoning    int64
}

func instant(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	if t.Location() != time.UTC {
		return "NOT UTC: " + t.String()
	}
	return t.Format(time.RFC3339Nano)
}

func toGolden(c Call) goldenCall {
	g := goldenCall{
		RequestID: c.RequestID, Identity: c.Identity, Gateway: c.Gateway,
		Start: instant(c.Start), FirstToken: instant(c.FirstToken), End: instant(c.End),
		Key: c.Key, KeyAlias: c.KeyAlias, Team: c.Team, User: c.User, Model: c.Model,
		ModelGroup: c.ModelGroup, Deployment: c.Deployment, Provider: c.Provider, Host: c.Host, PriceKey: c.PriceKey,
		Status: c.Status.String(), Recorded: c.Recorded.String(), Tokens: goldenTokens(c.Tokens), Source: c.Source,
		Region: c.Region,
	}
	for tool, n := range c.Tools {
		if n != 0 {
			if g.Tools == nil {
				g.Tools = map[string]int64{}
			}
			g.Tools[Tool(tool).String()] = n
		}
	}
	if c.ServiceTier != TierStandard {
		g.Tier = c.ServiceTier.String()
	}
	return g
}

// readAll drains a reader opened on data, checking the per-batch
// accounting on the way.
func readAll(t testing.TB, name string, data []byte, opt Options) result {
	t.Helper()
	r, err := open(context.Background(), name, bytes.NewReader(data), opt)
	if err != nil {
		return result{Err: err.Error()}
	}
	defer r.Close()
	res := result{Format: r.Format()}
	var b Batch
	for {
		err := r.Next(context.Background(), &b)
		if err == io.EOF {
			break
		}
		if b.Rows != len(b.Calls)+len(b.Rejected) {
			t.Fatalf("batch has %d rows but %d calls + %d rejections", b.Rows, len(b.Calls), len(b.Rejected))
		}
		res.Rows += b.Rows
		for _, c := range b.Calls {
			c.SettleSource()
			if c.IdentityHash != HashIdentity(c.Identity) {
				t.Errorf("%s: identity hash %d, want HashIdentity(%q) = %d", c.Source, c.IdentityHash, c.Identity, HashIdentity(c.Identity))
			}
			res.Calls = append(res.Calls, toGolden(c))
		}
		for _, rej := range b.Rejected {
			if rej.File != name {
				t.Errorf("rejection %v names file %q, want %q", rej, rej.File, name)
			}
			res.Rejected = append(res.Rejected, goldenRejection{Where: rej.Where(), Reason: rej.Reason})
		}
		if err != nil {
			res.Err = err.Error()
			break
		}
	}
	return res
}

func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*")
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range files {
		if fi, err := os.Stat(path); err != nil || fi.IsDir() || strings.HasSuffix(path, ".golden.json") {
			continue
		}
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			got := readAll(t, filepath.Base(path), data, Options{})
			checkResult(t, got)
			gotJSON, err := json.MarshalIndent(got, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			gotJSON = append(gotJSON, '\n')
			golden := strings.TrimSuffix(path, ".gz") + ".golden.json"
			if *update && !strings.HasSuffix(path, ".gz") {
				if err := os.WriteFile(golden, gotJSON, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if *update {
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if strings.HasSuffix(path, ".gz") {
				// Same calls as the plain file, under another name.
				want = bytes.ReplaceAll(want, []byte(filepath.Base(strings.TrimSuffix(path, ".gz"))), []byte(filepath.Base(path)))
			}
			if !bytes.Equal(gotJSON, want) {
				t.Errorf("result differs from %s (run go test -update and review the diff)\ngot:\n%s", golden, gotJSON)
			}
		})
	}
}

// checkResult checks the invariants every reader keeps.
func checkResult(t testing.TB, r result) {
	t.Helper()
	if r.Rows != len(r.Calls)+len(r.Rejected) {
		t.Errorf("%d rows but %d calls + %d rejections", r.Rows, len(r.Calls), len(r.Rejected))
	}
	for _, rej := range r.Rejected {
		if rej.Where == "" || rej.Reason == "" {
			t.Errorf("rejection without location or reason: %+v", rej)
		}
	}
	for _, c := range r.Calls {
		tk := c.Tokens
		if tk.Input < 0 || tk.CacheRead < 0 || tk.CacheWrite < 0 || tk.Output < 0 || tk.Reasoning < 0 || tk.Reasoning > tk.Output {
			t.Errorf("%s: bad token buckets %+v", c.Source, tk)
		}
		if c.Start == "" || strings.HasPrefix(c.Start, "NOT") || strings.HasPrefix(c.End, "NOT") || strings.HasPrefix(c.FirstToken, "NOT") {
			t.Errorf("%s: bad instants %q %q %q", c.Source, c.Start, c.FirstToken, c.End)
		}
		if c.Source == "" {
			t.Errorf("call %q has no source", c.RequestID)
		}
		if strings.HasPrefix(c.Key, "sk-") {
			t.Errorf("%s: raw key kept", c.Source)
		}
	}
}

// TestCSVChunking reads every CSV fixture with many chunk sizes and worker
// counts: the result must not depend on where chunks are cut.
func TestCSVChunking(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.csv")
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		want := readAll(t, "f.csv", data, Options{Workers: 1, ChunkSize: 1 << 20})
		for _, chunk := range []int{1, 7, 31, 64, 200} {
			for _, workers := range []int{1, 2, 5} {
				got := readAll(t, "f.csv", data, Options{Workers: workers, ChunkSize: chunk, BatchSize: 3})
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("%s chunk=%d workers=%d: result differs\ngot  %v\nwant %v", path, chunk, workers, got, want)
				}
			}
		}
	}
}

func TestOpenRefuses(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want error
		text string
	}{
		{name: "ui export csv", in: "Date,Team,Team ID,Spend ($),Requests\n", want: ErrNoPerCallTimes, text: "LiteLLM_SpendLogs"},
		{name: "ui export json", in: `{"metadata":{"entity_type":"team"},"data":[]}`, want: ErrNoPerCallTimes},
		{name: "unknown csv", in: "a,b,c\n1,2,3\n", want: ErrUnknownFormat, text: "header has neither startTime"},
		{name: "semicolon-separated csv", in: "request_id;startTime;spend;prompt_tokens;completion_tokens\nr;2026-09-01 00:00:00;0,1;1;1\n",
			want: ErrUnknownFormat, text: "separated by semicolons"},
		{name: "tab-separated csv", in: "start\tmodel\tinput_tokens\n", want: ErrUnknownFormat, text: "separated by tabs"},
		{name: "unknown json", in: `{"hello":1}`, want: ErrUnknownFormat},
		{name: "missing column", in: "request_id,startTime,spend\n", want: ErrBadHeader, text: `"prompt_tokens"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := open(context.Background(), "in", strings.NewReader(tt.in), Options{})
			if !errors.Is(err, tt.want) {
				t.Fatalf("Open error = %v, want %v", err, tt.want)
			}
			if !strings.HasPrefix(err.Error(), "in") || !strings.Contains(err.Error(), tt.text) {
				t.Errorf("error %q does not name the input or lacks %q", err, tt.text)
			}
		})
	}
}

// TestOpenEmpty checks that an input with no rows (no bytes, or blanks
// only, plain or gzipped) reads as zero rows, not as an unknown format: a
// day without calls exports an empty file.
func TestOpenEmpty(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Close()
	for name, in := range map[string]string{"no bytes": "", "blank lines": "\n \r\n\t\n", "gzip of nothing": gz.String()} {
		t.Run(name, func(t *testing.T) {
			r, err := open(context.Background(), "in", strings.NewReader(in), Options{})
			if err != nil {
				t.Fatalf("open: %v, want an empty reader", err)
			}
			defer r.Close()
			var b Batch
			if err := r.Next(context.Background(), &b); err != io.EOF || b.Rows != 0 {
				t.Fatalf("Next = %v with %d rows, want io.EOF and none", err, b.Rows)
			}
			if r.Format() != FormatEmpty {
				t.Errorf("format %q, want %q", r.Format(), FormatEmpty)
			}
		})
	}
}

func TestOpenDetects(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"litellm csv with BOM", "\xef\xbb\xbfrequest_id,startTime,spend,prompt_tokens,completion_tokens\n", FormatSpendLogCSV},
		{"litellm csv snake case", "request_id,start_time,spend,prompt_tokens,completion_tokens\n", FormatSpendLogCSV},
		{"canonical csv", "start,model,input_tokens,output_tokens\n", FormatCanonicalCSV},
		{"litellm json", ` [{"request_id":"a","startTime":"2026-01-01 00:00:00"}]`, FormatSpendLogJSON},
		{"litellm json empty", `[]`, FormatSpendLogJSON},
		{"litellm v2 page", `{"data":[],"total":0}`, FormatSpendLogJSON},
		{"v7 array", `[{"timestamp":"2026-01-01T00:00:00Z","tokens":{}}]`, FormatCLIProxyV7JSON},
		{"v7 lines", "{\"timestamp\":\"2026-01-01T00:00:00Z\",\"tokens\":{}}\n", FormatCLIProxyV7JSONL},
		{"v6 export", `{"version":1,"exported_at":"x","usage":{"apis":{}}}`, FormatCLIProxyV6},
		{"canonical lines", `{"start":"2026-01-01T00:00:00Z","model":"m"}`, FormatCanonicalJSONL},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := open(context.Background(), "in", strings.NewReader(tt.in), Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if r.Format() != tt.want {
				t.Errorf("Format() = %q, want %q", r.Format(), tt.want)
			}
		})
	}
}

// bigInputs are a flat export and a /spend/logs answer of n calls.
func bigInputs(n int) map[string][]byte {
	var csv, js bytes.Buffer
	writeFlatCSV(&csv, n)
	writeSpendLogsJSON(&js, flatRows(n))
	return map[string][]byte{"big.csv": csv.Bytes(), "big.json": js.Bytes()}
}

// TestClose checks that a reader abandoned early can be closed, the CSV
// reader and the JSON array reader, whose workers run alike.
func TestClose(t *testing.T) {
	for name, data := range bigInputs(50000) {
		for _, opt := range []Options{{ChunkSize: 4096, BatchSize: 100}, {}} {
			r, err := open(context.Background(), name, bytes.NewReader(data), opt)
			if err != nil {
				t.Fatal(err)
			}
			var b Batch
			if err := r.Next(context.Background(), &b); err != nil {
				t.Fatal(err)
			}
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestNextAfterClose checks that Next on a closed reader returns instead
// of blocking.
func TestNextAfterClose(t *testing.T) {
	for name, data := range bigInputs(20000) {
		r, err := open(context.Background(), name, bytes.NewReader(data), Options{ChunkSize: 1024, BatchSize: 50, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		r.Close()
		var b Batch
		stopped := false
		for range 100 {
			if err := r.Next(context.Background(), &b); err != nil {
				stopped = true
				break
			}
		}
		if !stopped {
			t.Errorf("%s: Next kept returning batches after Close", name)
		}
	}
}
