package ledger

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"
	"testing/iotest"
)

// drain reads r to its end as readAll does.
func drain(t *testing.T, r Reader) result {
	defer r.Close()
	var res result
	var b Batch
	for {
		err := r.Next(context.Background(), &b)
		if err == io.EOF {
			return res
		}
		res.Rows += b.Rows
		for _, c := range b.Calls {
			res.Calls = append(res.Calls, toGolden(c))
		}
		for _, rej := range b.Rejected {
			res.Rejected = append(res.Rejected, goldenRejection{Where: rej.Where(), Reason: rej.Reason})
		}
		if err != nil {
			res.Err = err.Error()
			return res
		}
	}
}

// framedAndDecoded reads data as /spend/logs JSON both ways: through
// produceArray (the framer, then the decoder) from src, and with the
// decoder alone from the start, the walk as it was before the framer.
func framedAndDecoded(t *testing.T, data []byte, src io.Reader, limit int) (framed, decoded result) {
	opt := Options{BatchSize: 3, maxRecord: limit}
	rec := schemaRecord(spendLogSchema)
	framed = drain(t, newPushReader("f.json", FormatSpendLogJSON, opt, produceArray(src, opt, rec, spendLogSchema)))
	decoded = drain(t, newPushReader("f.json", FormatSpendLogJSON, opt, func(e *emitter) error {
		return decodeArrays(e, bytes.NewReader(data), 0, limit, 1, nil, rec)
	}))
	return framed, decoded
}

// errLine is the line an error names.
var errLine = regexp.MustCompile(`^f\.json:\d+:`)

// FuzzFramedArraysMatchDecoder: for any input, reading /spend/logs arrays
// with the framer gives the calls, rejections, locations and error (its
// line included) the decoder alone gives, however the reads fall (but for
// the line of an error after a hand-over, read in pieces).
func FuzzFramedArraysMatchDecoder(f *testing.F) {
	// Small seeds: a large one makes each new input slow to minimise.
	for _, p := range []string{"testdata/spendlogs.json", "testdata/spendlogs_v2.json"} {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data, uint8(0))
		}
	}
	row := `{"request_id":"r%d","startTime":"2026-09-01 00:00:0%d","spend":0.1,"prompt_tokens":%d,"completion_tokens":1}`
	one, two := fmt.Sprintf(row, 1, 1, 10), fmt.Sprintf(row, 2, 2, 20)
	for _, s := range []string{
		"[" + one + "," + two + "]", "[" + one + "]\n\n[" + two + "]\n", "[" + one + ",]", "[" + one + ",\n" + two,
		"[" + one + "]\n42\n", "[" + one + "] x", "[]", "[ ]\n[" + one + "]", "[1, \"x\", null, " + one + "]",
		"[" + one + "\n" + two + "]", "\n\n[" + one + ",{\"request_id\": tru}]", `{"data":[` + one + `],"total":1}`,
		"[" + one + "]" + `{"data":[` + two + `]}`, "", "  \n", "[12", "[" + one + ",1e", "[" + strings.Repeat(" ", 300) + one + "]",
	} {
		f.Add([]byte(s), uint8(1))
	}
	// The metadata the framer reads ahead, and what it must leave to the
	// workers: another name of the column, a text holding JSON, a member
	// given twice, counts replaced, a wrong kind, a syntax error inside.
	meta := `{"request_id":"m%d","startTime":"2026-09-01 00:00:01","spend":0.1,"prompt_tokens":10,"completion_tokens":1,%s}`
	for i, m := range []string{
		`"metadata":{"user_api_key_alias":"a","additional_usage_values":{"prompt_tokens_details":{"cached_tokens":4}}}`,
		`"Metadata":{"user_api_key_alias":"a"},"metadata":{"user_api_key_alias":"b"}`,
		`"metadata":"{\"user_api_key_alias\":\"s\"}"`,
		`"metadata":{"user_api_key_alias":"a"},"metadata":{"user_api_key_alias":"b"}`,
		`"metadata":{"additional_usage_values":{"prompt_tokens_details":{"cached_tokens":4},"prompt_tokens_details":{"cached_tokens":2}}}`,
		`"metadata":{"additional_usage_values":{"prompt_tokens_details":{"cached_tokens":"x"}}}`,
		`"metadata":{"additional_usage_values":{"prompt_tokens_details":{"cached_tokens":99}}}`,
		`"metadata":{"user_api_key_alias":"a",}`,
		`"metadata":{},"x":{"metadata":{"user_api_key_alias":"n"}}`,
		`"metadata" : { "user_api_key_alias" : "a\u00e9" } `,
	} {
		f.Add([]byte("["+fmt.Sprintf(meta, i, m)+","+one+"]"), uint8(i%4))
	}
	// Members in another order, or of no column, from one element to the
	// next: the framer's columns are remembered by place (frameColumns).
	moved := `{"x":1,"spend":0.2,"request_id":"o1","prompt_tokens":3,"startTime":"2026-09-01 00:00:03","completion_tokens":2}`
	f.Add([]byte("["+one+","+moved+","+two+`,{"request_id":"o2","x":{"request_id":"n"},"Request_ID":"o3"}]`), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, how uint8) {
		var src io.Reader = bytes.NewReader(data)
		switch how % 4 {
		case 1:
			src = iotest.OneByteReader(src)
		case 2:
			src = iotest.HalfReader(src)
		case 3:
			src = iotest.DataErrReader(src)
		}
		// The longest element stays the default: where the decoder stops
		// an element near it depends on how its own reads fall.
		framed, decoded := framedAndDecoded(t, data, src, 64<<20)
		if how%4 != 0 {
			// Read in pieces, the decoder locates a value after one it
			// read at the line of the white space it holds before it:
			// the line of an error after a hand-over is the decoder's
			// with those reads, not the one read whole.
			framed.Err, decoded.Err = errLine.ReplaceAllString(framed.Err, "f.json:N:"), errLine.ReplaceAllString(decoded.Err, "f.json:N:")
		}
		if got, want := fmt.Sprint(framed), fmt.Sprint(decoded); got != want {
			t.Fatalf("%q (reads %d):\nframed  %s\ndecoded %s", data, how%4, got, want)
		}
	})
}

// TestFramerReadsLargeArrays: an array larger than the framer's buffer,
// read a few bytes at a time, gives every call, located as the decoder
// locates it.
func TestFramerReadsLargeArrays(t *testing.T) {
	var buf bytes.Buffer
	writeSpendLogsJSON(&buf, flatRows(2000))
	data := append(buf.Bytes(), "\n["+`{"request_id":"x","startTime":"2026-09-01 00:00:00","spend":1,"prompt_tokens":1,"completion_tokens":1}`+"]"...)
	framed, decoded := framedAndDecoded(t, data, iotest.HalfReader(bytes.NewReader(data)), 64<<20)
	if framed.Rows != 2001 || fmt.Sprint(framed) != fmt.Sprint(decoded) {
		t.Fatalf("framed %d rows, err %q; decoded %d rows, err %q; or they differ", framed.Rows, framed.Err, decoded.Rows, decoded.Err)
	}
	if last := framed.Calls[len(framed.Calls)-1].Source; !strings.HasPrefix(last, "f.json: array 2 at line 2004[0]") {
		t.Errorf("last call at %q", last)
	}
}

// TestMemberColumnsAsLookedUp: the columns remembered by place are the
// schema's, whatever the records' members and their order.
func TestMemberColumnsAsLookedUp(t *testing.T) {
	records := [][]string{
		{"request_id", "spend", "metadata", "model"},
		{"request_id", "spend", "metadata", "model"},
		{"spend", "request_id", "Metadata", "unknown", "model", "team_alias"},
		{"request_id"},
		{"request_id", "spend", "metadata", "model", "user_api_key_alias", "x"},
		{"request_id", "spend", "metadata", "model"},
	}
	var m memberColumns
	for r, rec := range records {
		for n, name := range rec {
			if got, want := m.index(spendLogSchema, n, []byte(name)), spendLogSchema.index(name); got != want {
				t.Errorf("record %d member %d %q: column %d, want %d", r, n, name, got, want)
			}
		}
	}
}

// TestAppendQuotedAsStrconv: a request id is quoted in a call's source as
// %q quotes it, whatever its bytes.
func TestAppendQuotedAsStrconv(t *testing.T) {
	ids := []string{"", "abc", "651c16c0-07d0-4ed2-a9d1-34430b6d863f", `a"b`, `a\b`, "a\x7fb", "tab\there", "é", "\xff", "~ !"}
	for c := range 256 {
		ids = append(ids, "x"+string(rune(c))+"y", "x"+string([]byte{byte(c)})+"y")
	}
	for _, id := range ids {
		if got, want := string(appendQuoted([]byte("p "), []byte(id))), fmt.Sprintf("p %q", id); got != want {
			t.Errorf("%q: %s, want %s", id, got, want)
		}
	}
}

// TestFramerReadsLongElements: elements longer than a read's head room
// (aheadHead) and than a frame buffer, read whole, in halves and in reads
// of 100 KiB, give what the decoder alone gives; a read that fails midway
// ends the input with its failure.
func TestFramerReadsLongElements(t *testing.T) {
	row := `{"request_id":"r%d","startTime":"2026-09-01 00:00:0%d","spend":0.1,"prompt_tokens":%d,"completion_tokens":1,"x":"%s"}`
	var b strings.Builder
	b.WriteString("[")
	sizes := []int{10, 200 << 10, 10, 3 << 20, 10, 70 << 10, 10}
	for i, n := range sizes {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, row, i, i, 10+i, strings.Repeat("y", n))
	}
	b.WriteString("]")
	data := []byte(b.String())
	for name, src := range map[string]io.Reader{
		"whole":   bytes.NewReader(data),
		"halves":  iotest.HalfReader(bytes.NewReader(data)),
		"100 KiB": &sizedReader{data: data, n: []int{100 << 10}},
		// A short read, then a long one, while an element is cut: it
		// grows in place.
		"30 KiB, 900 KiB": &sizedReader{data: data, n: []int{30 << 10, 900 << 10}},
	} {
		framed, decoded := framedAndDecoded(t, data, src, 64<<20)
		if framed.Rows != len(sizes) || framed.Err != "" || fmt.Sprint(framed) != fmt.Sprint(decoded) {
			t.Errorf("%s: framed %d rows, err %q; decoded %d rows, err %q; or they differ", name, framed.Rows, framed.Err, decoded.Rows, decoded.Err)
		}
	}
	opt := Options{BatchSize: 3, maxRecord: 64 << 20}
	src := &failingReader{data: data[:len(data)/2]}
	got := drain(t, newPushReader("f.json", FormatSpendLogJSON, opt, produceArray(src, opt, schemaRecord(spendLogSchema), spendLogSchema)))
	if !strings.Contains(got.Err, "input/output error") || got.Rows >= len(sizes) {
		t.Errorf("a read failing midway: %d rows, err %q", got.Rows, got.Err)
	}
}

// sizedReader reads data n[0] bytes, then n[1], and so on, round.
type sizedReader struct {
	data []byte
	n    []int
	i    int
}

func (r *sizedReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), r.n[r.i%len(r.n)])], r.data)
	r.i++
	r.data = r.data[n:]
	return n, nil
}
