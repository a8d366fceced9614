package ledger

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

func TestParseInt(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true},
		{"1234", 1234, true},
		{"-7", -7, true},
		{"+7", 7, true},
		{"12.0", 12, true},
		{"12.", 12, true},
		{"12.5", 0, false},
		{"12,5", 0, false},
		{"", 0, false},
		{"-", 0, false},
		{"1e3", 0, false},
		{"999999999999999999", 999_999_999_999_999_999, true}, // 18 digits: the fast path
		{"000000000000000042", 42, true},
		{"1234x", 0, false},
		{"9223372036854775807", 1<<63 - 1, true},
		{"9223372036854775808", 0, false},
	}
	for _, tt := range tests {
		got, ok := parseInt([]byte(tt.in))
		if got != tt.want || ok != tt.ok {
			t.Errorf("parseInt(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestParseDecimal(t *testing.T) {
	tests := []struct {
		in   string
		want string // "" = refused
	}{
		{"0", "0"},
		{"0.000123", "0.000123"},
		{"1.2345e-05", "0.000012345"},
		{"1.2345E-05", "0.000012345"},
		{"-4", "-4"},
		{"+2.50", "2.5"},
		{"3e2", "300"},
		{".5", "0.5"},
		{"0.30000000000000004441", "0.30000000000000004441"},
		{"123456789012345678901234", "123456789012345678901234"},
		{"1e", ""},
		{"1e5.0", ""},
		{"1.2.3", ""},
		{"$1", ""},
		{"1,234.5", ""},
		{"NaN", ""},
		{"", ""},
		{".", ""},
	}
	for _, tt := range tests {
		got, ok := parseAmount([]byte(tt.in))
		if tt.want == "" {
			if ok {
				t.Errorf("parseAmount(%q) = %s, want refusal", tt.in, got)
			}
			continue
		}
		if !ok || !got.Decimal().Equal(decimal.RequireFromString(tt.want)) {
			t.Errorf("parseAmount(%q) = %s, %v; want %s", tt.in, got, ok, tt.want)
		}
	}
}

func TestParseTime(t *testing.T) {
	tests := []struct {
		name, in, want string // want "" = refused
	}{
		{"zone-less is UTC", "2026-09-01 09:15:02.123", "2026-09-01T09:15:02.123Z"},
		{"T and Z", "2026-09-01T09:15:02Z", "2026-09-01T09:15:02Z"},
		{"offset", "2026-08-22T14:03:05.102938471+08:00", "2026-08-22T06:03:05.102938471Z"},
		{"negative offset", "2026-04-30T16:04:00-05:00", "2026-04-30T21:04:00Z"},
		{"postgres offset", "2026-09-01 09:15:02.5+00", "2026-09-01T09:15:02.5Z"},
		{"compact offset", "2026-09-01 09:15:02+0130", "2026-09-01T07:45:02Z"},
		{"leap day", "2028-02-29 00:00:00", "2028-02-29T00:00:00Z"},
		{"no leap day", "2026-02-29 00:00:00", ""},
		{"day 31 of september", "2026-09-31 00:00:00", ""},
		{"hour 24", "2026-09-01 24:00:00", ""},
		{"no seconds", "2026-09-01 09:15", ""},
		{"empty fraction", "2026-09-01 09:15:02.", ""},
		{"bad zone", "2026-09-01 09:15:02 CEST", ""},
		{"year one", "0001-01-01 00:00:00", ""},
		{"slashes", "2026/09/01 09:15:02", ""},
	}
	var dc dateCache
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, cache := range []*dateCache{nil, &dc, &dc} {
				got, ok := parseTime([]byte(tt.in), cache)
				if tt.want == "" {
					if ok {
						t.Errorf("parseTime(%q) = %s, want refusal", tt.in, got)
					}
					continue
				}
				want, _ := time.Parse(time.RFC3339Nano, tt.want)
				if !ok || !got.Equal(want) || got.Location() != time.UTC {
					t.Errorf("parseTime(%q) = %s, %v; want %s", tt.in, got, ok, want)
				}
			}
		})
	}
}

func TestScanRecords(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		end    int
		open   bool
		parity bool // scanParity tells
	}{
		{"plain", "a,b\nc,d\ne", 8, false, true},
		{"quoted newline", "a,\"b\nc\"\nd", 8, false, true},
		{"open quote", "a,b\nc,\"d\ne", 4, true, true},
		{"escaped quote", "a,\"b\"\"\n\"\nx", 9, false, true},
		{"bare quote is literal", "a,b\"c\nd", 6, false, false},
		{"no record", "abc", 0, false, true},
		{"a quote first", "\"a\nb\",c\nd", 8, false, true},
		{"quotes across words", strings.Repeat("x", 62) + ",\"\"\"\n\",\n" + strings.Repeat("\"\"", 40) + "\n", 151, false, true},
		{"text after a closing quote, then a quote", "\"a\"b\"\nc\n", 8, false, false},
		{"an empty quoted field, then text", "\"\"a\nb\n", 6, false, true},
	}
	for _, tt := range tests {
		end, open, quoted := scanRecords([]byte(tt.in))
		if end != tt.end || open != tt.open || quoted != strings.Contains(tt.in, `"`) {
			t.Errorf("%s: scanRecords(%q) = %d, %v, %v; want %d, %v", tt.name, tt.in, end, open, quoted, tt.end, tt.open)
		}
		var m csvMarks
		m.mark([]byte(tt.in))
		end, open, quoted, ok := m.scanParity()
		if ok != tt.parity || ok && (end != tt.end || open != tt.open || quoted != strings.Contains(tt.in, `"`)) {
			t.Errorf("%s: scanParity(%q) = %d, %v, %v, %v; want %d, %v, ok %v", tt.name, tt.in, end, open, quoted, ok, tt.end, tt.open, tt.parity)
		}
	}
}

func TestSplitter(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		want  string // fields joined by |
		lines int
		blank bool
		bad   string
	}{
		{"plain", "a,b,c\nrest", "a|b|c", 1, false, ""},
		{"crlf", "a,b\r\n", "a|b", 1, false, ""},
		{"long line", "aaaaaaaaaa,bbbbbbbbbbbbbbb,,c,dddddddddddddddddddddd\n", "aaaaaaaaaa|bbbbbbbbbbbbbbb||c|dddddddddddddddddddddd", 1, false, ""},
		{"quoted", "\"a,b\",\"c\"\"d\",e\n", "a,b|c\"d|e", 1, false, ""},
		{"quoted newline", "\"a\nb\",c\r\n", "a\nb|c", 2, false, ""},
		{"blank", "\r\n", "", 1, true, ""},
		{"last without newline", "a,\"b\"", "a|b", 0, false, ""},
		{"text after quote", "\"a\"b,c\n", "b|c", 1, false, "field 1: text after the closing quote"},
		{"bare quote", "a,b\"c\n", "a|b\"c", 1, false, "field 2: quote inside an unquoted field"},
	}
	for _, tt := range tests {
		var s splitter
		_, lines, blank, bad := s.record([]byte(tt.in), 0)
		got := make([]string, len(s.fields))
		for i, f := range s.fields {
			got[i] = string(f)
		}
		if blank != tt.blank || lines != tt.lines || bad != tt.bad || (!blank && strings.Join(got, "|") != tt.want) {
			t.Errorf("%s: record(%q) = %q lines=%d blank=%v bad=%q; want %q lines=%d blank=%v bad=%q",
				tt.name, tt.in, got, lines, blank, bad, tt.want, tt.lines, tt.blank, tt.bad)
		}
	}
}

func TestHashKey(t *testing.T) {
	// sha256("sk-1234") in hex, as LiteLLM's hash_token computes it.
	const want = "88dc28d0f030c55ed4ab77ed8faf098196cb1c05df778539800c9f1243fe6b4b"
	if got := HashKey("sk-1234"); got != want {
		t.Errorf("HashKey(sk-1234) = %q, want %q", got, want)
	}
}

// TestCacheHitID checks the id test against its definition: the last
// "_cache_hit" in the id, after at least one byte and before a digit.
func TestCacheHitID(t *testing.T) {
	want := func(id []byte) bool {
		i := bytes.LastIndex(id, []byte("_cache_hit"))
		return i > 0 && i+len("_cache_hit") < len(id) && '0' <= id[i+len("_cache_hit")] && id[i+len("_cache_hit")] <= '9'
	}
	ids := []string{"", "_", "_cache_hit1", "a_cache_hit", "a_cache_hit1", "a_cache_hit_cache_hit1",
		"a_cache_hit1_cache_hitx", "a_cache_hitx_cache_hit1", "msg_01nUMp9VJD6co1LXdu7PB2dNVp",
		"chatcmpl-1_cache_hit1732550400", "a__cache_hit9", "a_cache_hi1", "__cache_hit0", "x_cache_hit_1"}
	// And every string of up to 4 pieces from a small alphabet of parts.
	parts := []string{"_", "_cache_hit", "a", "1", "_cache_hi"}
	var grow func(s string, n int)
	grow = func(s string, n int) {
		ids = append(ids, s)
		if n == 0 {
			return
		}
		for _, p := range parts {
			grow(s+p, n-1)
		}
	}
	grow("", 4)
	for _, id := range ids {
		if got := cacheHitID([]byte(id)); got != want([]byte(id)) {
			t.Errorf("cacheHitID(%q) = %v, want %v", id, got, want([]byte(id)))
		}
	}
}

// TestClosingQuoteEveryPlacement: the quote that closes a field is found
// a word at a time as one at a time finds it, for every placement of
// quotes in texts of up to 17 bytes (pairs across a word's end included).
func TestClosingQuoteEveryPlacement(t *testing.T) {
	want := func(data []byte, j int) int {
		for ; j < len(data); j++ {
			if data[j] == '"' {
				if j+1 < len(data) && data[j+1] == '"' {
					j++
					continue
				}
				return j
			}
		}
		return -1
	}
	for n := 0; n <= 17; n++ {
		for bitsOf := 0; bitsOf < 1<<n; bitsOf++ {
			data := make([]byte, n)
			for k := range data {
				data[k] = 'a'
				if bitsOf>>k&1 == 1 {
					data[k] = '"'
				}
			}
			for _, j := range []int{0, 1} {
				if j <= n {
					if got, w := closingQuote(data, j), want(data, j); got != w {
						t.Fatalf("closingQuote(%q, %d) = %d, want %d", data, j, got, w)
					}
				}
			}
		}
	}
}

// TestWhereOfARowReadFromAFile: a CSV reader notes the file and line of a
// call, not its text; Where gives "file:line", SettleSource writes it into
// Source, and a Source a reader set is kept as it is.
func TestWhereOfARowReadFromAFile(t *testing.T) {
	data := "request_id,startTime,model,spend,prompt_tokens,completion_tokens\n" +
		"r-1,2026-10-01 00:00:01,gpt-4o,0.1,10,5\n" +
		"r-2,2026-10-01 00:00:02,gpt-4o,0.1,10,5\n"
	calls := []Call{}
	r, err := open(context.Background(), "logs/spend.csv", strings.NewReader(data), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var b Batch
	for err := r.Next(context.Background(), &b); err == nil; err = r.Next(context.Background(), &b) {
		calls = append(calls, b.Calls...)
	}
	if len(calls) != 2 {
		t.Fatalf("read %d calls, want 2", len(calls))
	}
	for i, c := range calls {
		want := "logs/spend.csv:" + strconv.Itoa(i+2)
		if c.Source != "" || c.Where() != want {
			t.Errorf("call %d: Source %q, Where %q; want no text and %q", i, c.Source, c.Where(), want)
		}
		c.SettleSource()
		if c.Source != want || c.Where() != want || c.sourceFile != nil {
			t.Errorf("call %d settled: Source %q, Where %q", i, c.Source, c.Where())
		}
	}
	kept := Call{Source: "request r-9", sourceFile: calls[0].sourceFile, sourceLine: 7}
	if kept.Where() != "request r-9" {
		t.Errorf("a Source set: Where %q", kept.Where())
	}
}
