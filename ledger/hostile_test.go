package ledger

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"
)

// v7Pop is one CLIProxyAPI usage-queue record; n tells them apart.
func v7Pop(n int) string {
	return `{"timestamp":"2026-09-01T10:00:0` + string(rune('0'+n%10)) + `Z","model":"deepseek-chat","request_id":"r` +
		strings.Repeat("x", n) + `","tokens":{"input_tokens":10,"output_tokens":5}}`
}

// TestJSONAfterTheEnd checks the contract "every top-level value is read
// or the file is refused with its line": appended queue pops and two
// /spend/logs arrays in one file are read whole, and a stray value after
// the first is refused, never ignored.
func TestJSONAfterTheEnd(t *testing.T) {
	spend := func(id string) string {
		return `{"request_id":"` + id + `","startTime":"2026-09-01 00:00:00","spend":0.1,"prompt_tokens":1,"completion_tokens":1}`
	}
	tests := []struct {
		name    string
		in      string
		rows    int
		err     string // "" when the file reads to its end
		where   string // Where of the last call, when rows > 0
		wantErr bool
	}{
		{name: "three appended queue pops", rows: 5,
			in:    "[" + v7Pop(1) + "," + v7Pop(2) + "]\n[" + v7Pop(3) + "]\n[" + v7Pop(4) + "," + v7Pop(5) + "]\n",
			where: "in: array 3 at line 3[1]"},
		{name: "pops without newlines", rows: 3, in: "[" + v7Pop(1) + "][" + v7Pop(2) + "," + v7Pop(3) + "]",
			where: "in: array 2 at line 1[1]"},
		{name: "two spend logs arrays", rows: 2, in: "[" + spend("a") + "]\n\n[" + spend("b") + "]",
			where: "in: array 2 at line 3[0]"},
		{name: "two v2 pages", rows: 2, in: `{"data":[` + spend("a") + `],"total":1}` + "\n" + `{"data":[` + spend("b") + `],"total":1}`,
			where: "in: object 2 at line 2: data[0]"},
		{name: "a number after the array", in: "[" + spend("a") + "]\n42\n", rows: 1, wantErr: true, err: "in:2: top-level value 2"},
		{name: "garbage after the array", in: "[" + spend("a") + "]\n\nnot json", rows: 1, wantErr: true, err: "in:3:"},
		{name: "array cut short", in: "[" + spend("a") + ",\n" + spend("b"), rows: 2, wantErr: true, err: "in:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := readAll(t, "in", []byte(tt.in), Options{})
			if res.Rows != tt.rows {
				t.Errorf("read %d rows, want %d (err %q, rejected %v)", res.Rows, tt.rows, res.Err, res.Rejected)
			}
			if tt.wantErr != (res.Err != "") || !strings.HasPrefix(res.Err, tt.err) {
				t.Errorf("error %q, want one starting %q", res.Err, tt.err)
			}
			if tt.where != "" && (len(res.Calls) == 0 || !strings.HasPrefix(res.Calls[len(res.Calls)-1].Source, tt.where)) {
				t.Errorf("last call at %v, want %q", res.Calls, tt.where)
			}
		})
	}
}

// TestDuplicateHeaderColumns checks the contract "a column named twice is
// refused at the header line": neither spend may be picked silently.
func TestDuplicateHeaderColumns(t *testing.T) {
	tests := []struct {
		name, in, err string
	}{
		{name: "two spend columns", in: "request_id,startTime,spend,prompt_tokens,completion_tokens,spend\nr,2026-09-01 00:00:00,0.1,1,1,9\n",
			err: `in:1: bad header: columns 3 and 6 are both "spend"`},
		{name: "spelled two ways", in: "request_id,start_time,startTime,spend,prompt_tokens,completion_tokens\n",
			err: `in:1: bad header: columns 2 and 3 are both "startTime"`},
		{name: "after a blank line", in: "\nrequest_id,startTime,spend,prompt_tokens,completion_tokens,Spend\n",
			err: `in:2: bad header: columns 3 and 6 are both "Spend"`},
		{name: "canonical csv", in: "start,model,input_tokens,output_tokens,model\n", err: `in:1: bad header: columns 2 and 5 are both "model"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := readAll(t, "in", []byte(tt.in), Options{})
			if !strings.HasPrefix(res.Err, tt.err) {
				t.Errorf("error %q, want one starting %q", res.Err, tt.err)
			}
		})
	}
	t.Run("json member twice", func(t *testing.T) {
		in := `[{"request_id":"a","startTime":"2026-09-01 00:00:00","spend":0.1,"spend":9,"prompt_tokens":1,"completion_tokens":1}]`
		res := readAll(t, "in", []byte(in), Options{})
		if len(res.Calls) != 0 || len(res.Rejected) != 1 || !strings.Contains(res.Rejected[0].Reason, `member "spend" is given twice`) {
			t.Errorf("calls %v rejected %v, want one rejection for the second spend", res.Calls, res.Rejected)
		}
	})
}

// TestBinaryGivenAsCalls checks the contract "a file that is not a call
// log is named by its kind": a workbook or an archive given to --calls
// is never read as CSV "separated by semicolons".
func TestBinaryGivenAsCalls(t *testing.T) {
	zipOf := func(name string, body []byte) []byte {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		w, _ := zw.Create(name)
		w.Write(body)
		zw.Close()
		return buf.Bytes()
	}
	gzipOf := func(b []byte) []byte {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write(b)
		zw.Close()
		return buf.Bytes()
	}
	csv := []byte("request_id,startTime,spend,prompt_tokens,completion_tokens\nr;1;2\n")
	wb := excelize.NewFile()
	wb.SetCellValue("Sheet1", "A1", "request_id;startTime")
	var xlsx bytes.Buffer
	if err := wb.Write(&xlsx); err != nil {
		t.Fatal(err)
	}
	random := bytes.Repeat([]byte{0xde, 0xad, 0xbe, 0xef}, 128)
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"xlsx workbook", xlsx.Bytes(), "an XLSX workbook"},
		{"zip of a csv", zipOf("spend.csv", csv), "a zip archive"},
		{"zip of a gzip", zipOf("spend.csv.gz", gzipOf(csv)), "a zip archive"},
		{"gzip of a zip", gzipOf(zipOf("spend.csv", csv)), "a zip archive"},
		{"pdf", []byte("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj;\n"), "a PDF document"},
		{"xls", append([]byte("\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"), random...), "an XLS workbook"},
		{"utf-16 csv", []byte("\xff\xfer\x00e\x00q\x00;\x00"), "UTF-16 text"},
		{"random bytes", append([]byte("ab;cd"), 0, 1, 2), "binary content"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := open(context.Background(), "in", bytes.NewReader(tt.in), Options{})
			if !errors.Is(err, ErrUnknownFormat) || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "semicolons") {
				t.Errorf("error %v, want ErrUnknownFormat naming %q", err, tt.want)
			}
		})
	}
}

// TestNumberDigitsBounded checks the contract "every number read has at
// most numtext.MaxChars characters and MaxDigits significant digits":
// a spend of 10,000 digits is refused like 1e308, and a 4 MB spend costs
// no more than reading its bytes.
func TestNumberDigitsBounded(t *testing.T) {
	row := func(spend string) string {
		return "request_id,startTime,spend,prompt_tokens,completion_tokens\nr,2026-09-01 00:00:00," + spend + ",1,1\n"
	}
	canon := func(spend string) string {
		return "start,model,input_tokens,output_tokens,recorded_spend\n2026-09-01T00:00:00Z,m,1,1," + spend + "\n"
	}
	jsonRow := func(spend string) string {
		return `[{"request_id":"r","startTime":"2026-09-01 00:00:00","spend":` + spend + `,"prompt_tokens":1,"completion_tokens":1}]`
	}
	tests := []struct {
		name, in, reason string
	}{
		{name: "10,000 digits in a csv", in: row("1" + strings.Repeat("0", 9999)), reason: "is too long"},
		{name: "4 MB of digits in a csv", in: row("0." + strings.Repeat("3", 4<<20)), reason: "is too long"},
		{name: "41 significant digits", in: row("0." + strings.Repeat("1", 41)), reason: "is too long"},
		{name: "1e308 as before", in: row("1e308"), reason: "is out of range"},
		{name: "canonical recorded spend", in: canon(strings.Repeat("9", 10000)), reason: "is too long"},
		{name: "json number", in: jsonRow(strings.Repeat("9", 10000)), reason: "is too long"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			res := readAll(t, "in", []byte(tt.in), Options{})
			if len(res.Calls) != 0 || len(res.Rejected) != 1 || !strings.Contains(res.Rejected[0].Reason, tt.reason) {
				t.Fatalf("calls %d rejected %v err %q, want one rejection saying %q", len(res.Calls), res.Rejected, res.Err, tt.reason)
			}
			if len(res.Rejected[0].Reason) > 300 {
				t.Errorf("reason of %d bytes echoes the number", len(res.Rejected[0].Reason))
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
	t.Run("database mapper", func(t *testing.T) {
		m, err := NewSpendLogMapper([]string{"request_id", "startTime", "spend", "prompt_tokens", "completion_tokens"})
		if err != nil {
			t.Fatal(err)
		}
		var c Call
		values := [][]byte{[]byte("r"), []byte("2026-09-01 00:00:00"), []byte(strings.Repeat("9", 10000)), []byte("1"), []byte("1")}
		if reason := m.Map(values, "db", &c); !strings.Contains(reason, "is too long") {
			t.Errorf("reason %q, want the spend refused as too long", reason)
		}
	})
	t.Run("40 digits are read exactly", func(t *testing.T) {
		spend := "0." + strings.Repeat("1", 40)
		res := readAll(t, "in", []byte(row(spend)), Options{})
		if len(res.Calls) != 1 || res.Calls[0].Recorded != spend {
			t.Errorf("calls %v rejected %v, want one call recording %s", res.Calls, res.Rejected, spend)
		}
	})
}

// TestJSONElementBounded checks the contract "no JSON element is held
// beyond the longest record": an element larger than that ends the file
// with its line instead of growing memory with it.
func TestJSONElementBounded(t *testing.T) {
	in := `[{"request_id":"a","startTime":"2026-09-01 00:00:00","spend":0.1,"prompt_tokens":1,"completion_tokens":1},` + "\n" +
		`{"request_id":"` + strings.Repeat("x", 2<<20) + `"}]`
	res := readAll(t, "in", []byte(in), Options{maxRecord: 1 << 20})
	if res.Rows != 1 || !strings.HasPrefix(res.Err, "in:2: element [1]") || !strings.Contains(res.Err, "longer than 1048576 bytes") {
		t.Errorf("%d rows, error %q; want one row, then the element at line 2 refused", res.Rows, res.Err)
	}
}
