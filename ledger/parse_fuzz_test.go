package ledger

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// The fast parsers are checked against the standard library: on every input
// both accept, they must give the same result. Inputs only one of them
// accepts are the documented differences of the dialect (tokenfare refuses
// years before 1970, flags a stray quote instead of skipping the row) and
// are not compared.

// splitAll cuts data into records with the fast splitter, as the CSV reader
// does, and returns the fields of each non-blank record and where each
// record ends. ok is false when a record is malformed.
func splitAll(data []byte) (records [][]string, ends []int, ok bool) {
	data = bytes.Clone(data) // the splitter unescapes in place
	var s splitter
	ok = true
	for pos := 0; pos < len(data); {
		next, _, blank, bad := s.record(data, pos)
		ok = ok && bad == ""
		if next <= pos {
			panic(fmt.Sprintf("splitter does not advance at %d", pos))
		}
		ends = append(ends, next)
		pos = next
		if blank {
			continue
		}
		rec := make([]string, len(s.fields))
		for i, f := range s.fields {
			rec[i] = string(f)
		}
		records = append(records, rec)
	}
	return records, ends, true
}

// stdRecords reads data with encoding/csv; ok is false when it refuses it.
func stdRecords(data []byte) (records [][]string, ok bool) {
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return records, true
		}
		if err != nil {
			return nil, false
		}
		records = append(records, rec)
	}
}

// FuzzSplitterMatchesEncodingCSV checks the fast CSV splitter against
// encoding/csv, that scanRecords cuts chunks only where a record ends, and
// that the scans from marks (scanQuoteMarks, scanParity) cut them where
// scanRecords does.
func FuzzSplitterMatchesEncodingCSV(f *testing.F) {
	for _, s := range []string{
		"a,b,c\n1,2,3\n",
		"request_id,startTime,spend\nr1,2026-09-01 00:00:00,0.1\r\n",
		"\"a,b\",\"c\"\"d\",e\n\n\"multi\nline\",x\n",
		"a,,\n,\n\"\",\"\"\r\n",
		"no newline at the end",
		"a,b\"c\n",
		"\"a\"b,c\n",
		"x\r\ny\rz\n",
		"abcdefgh,ijklmnop,qrstuvwx,yz\n",
		"0123456789abcdef,0123456789abcde,,0123456789abcdef0,x\r\n" + strings.Repeat(",", 40) + "\n",
		"r1,0.1,\"{\"\"status\"\": \"\"success\"\", \"\"a\"\": {\"\"b\"\": 1}}\",False,\"[\"\"t\"\"]\",{},x\n",
		"\"\"\"\",\"\"\"x\"\"\",\"a\"\"\"\"b\",\n\"\",\"a\"b\n\"x\"\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkSplitInto(t, data)
		got, ends, okFast := splitAll(data)
		end, open, quoted := scanRecords(data)
		if !open && end > 0 && !containsInt(ends, end) {
			t.Errorf("scanRecords ends a chunk at %d, which is not a record end %v", end, ends)
		}
		var m csvMarks
		m.mark(data)
		if e, o, q := scanQuoteMarks(data, m.quotes); e != end || o != open || q != quoted {
			t.Errorf("scanQuoteMarks: end %d, open %t, quoted %t; scanRecords: %d, %t, %t", e, o, q, end, open, quoted)
		}
		if e, o, q := m.scan(data); e != end || o != open || q != quoted {
			t.Errorf("csvMarks.scan: end %d, open %t, quoted %t; scanRecords: %d, %t, %t", e, o, q, end, open, quoted)
		}
		if e, o, q, ok := m.scanParity(); ok && (e != end || o != open || q != quoted) {
			t.Errorf("scanParity: end %d, open %t, quoted %t; scanRecords: %d, %t, %t", e, o, q, end, open, quoted)
		}
		if countBits(m.lines) != bytes.Count(data, nl) {
			t.Errorf("%d newlines marked, %d in the data", countBits(m.lines), bytes.Count(data, nl))
		}
		want, okStd := stdRecords(data)
		if !okFast || !okStd {
			return
		}
		// encoding/csv turns "\r\n" inside a quoted field into "\n"; the
		// splitter keeps the field's bytes as RFC 4180 has them.
		for _, rec := range got {
			for i := range rec {
				rec[i] = strings.ReplaceAll(rec[i], "\r\n", "\n")
			}
		}
		if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
			t.Errorf("splitter and encoding/csv differ on %q\nsplitter: %q\ncsv:      %q", data, got, want)
		}
	})
}

// checkSplitInto checks that the reader's paths, which store field spans
// by column (splitInto, and splitMasked and quotedMasked from the marks of
// commas and quotes) and skip the search for quotes in chunks without any,
// find the same records and fields as the plain split.
func checkSplitInto(t *testing.T, data []byte) {
	for _, mode := range []string{"splitInto", "splitMasked", "splitPlain"} {
		data := bytes.Clone(data)
		_, _, quoted := scanRecords(data)
		var v rowFields
		v.data = data
		cols := make([]int, maxCols-1) // field k goes to column k
		for k := range cols {
			cols[k] = k
		}
		plain, fast := splitter{}, splitter{dst: &v, pos: cols, noQuote: !quoted}
		name := mode
		switch mode {
		case "splitMasked":
			fast.markCommas(data)
		case "splitPlain": // from the cutter's marks, the third field read with its quotes doubled
			var m csvMarks
			m.mark(data)
			m.scan(data)
			if !quoted || !m.plain {
				continue
			}
			fast.masks, fast.quotes, fast.lines, fast.plain, fast.keep = m.commas, m.quotes, m.lines, true, 3
		}
		for pos := 0; pos < len(data); {
			plainNext, plainLines, plainBlank, plainBad := plain.record(bytes.Clone(data), pos)
			next, lines, blank, bad := fast.record(data, pos)
			if next != plainNext || lines != plainLines || blank != plainBlank || bad != plainBad {
				t.Fatalf("record at %d: %s ends at %d after %d lines (blank %t, %q), the plain split at %d after %d (blank %t, %q)",
					pos, name, next, lines, blank, bad, plainNext, plainLines, plainBlank, plainBad)
			}
			if fast.n < 0 && fmt.Sprintf("%q", fast.fields) != fmt.Sprintf("%q", plain.fields) {
				t.Fatalf("record at %d: %s split it as %q, the plain split %q", pos, name, fast.fields, plain.fields)
			}
			if fast.n >= 0 && !blank && bad == "" {
				if fast.n != len(plain.fields) {
					t.Fatalf("record at %d: %s counts %d fields, the plain split %d", pos, name, fast.n, len(plain.fields))
				}
				for k := range min(fast.n, len(cols)) {
					got := v.get(k)
					if k+1 == fast.keep && v.doubled {
						got = undouble(got)
					}
					if !bytes.Equal(got, plain.fields[k]) {
						t.Fatalf("record at %d field %d: %s %q, the plain split %q", pos, k, name, got, plain.fields[k])
					}
				}
			}
			pos = next
		}
	}
}

func containsInt(list []int, x int) bool {
	for _, v := range list {
		if v == x {
			return true
		}
	}
	return false
}

// timeLayouts are the standard-library layouts of every form parseTime
// reads; time.Parse reads a fraction after the seconds in each of them.
var timeLayouts = func() []string {
	var out []string
	for _, base := range []string{"2006-01-02 15:04:05", "2006-01-02T15:04:05"} {
		for _, zone := range []string{"", "Z07:00", "Z0700", "Z07", " Z07:00", " Z0700", " Z07"} {
			out = append(out, base+zone)
		}
	}
	return out
}()

// FuzzParseTimeMatchesTimeParse checks parseTime against time.Parse, and
// the date cache against a fresh parse.
func FuzzParseTimeMatchesTimeParse(f *testing.F) {
	for _, s := range []string{
		"2026-09-01 00:00:00",
		"2026-09-01T23:59:59.123456789Z",
		"2026-09-01 08:00:00+08:00",
		"2026-09-01 08:00:00 +0800",
		"2026-09-01 08:00:00-05",
		"2026-09-01 08:00:00 UTC",
		"2026-02-29 00:00:00",
		"2024-02-29 00:00:00.5",
		"1970-01-01 05:00:00+08:00",
		"2026-09-01 00:00:00.1234567891234Z",
		"2026-09-01 00:00:60",
		"2026-09-01 00:00:5x",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := parseTime([]byte(s), nil)
		var dc dateCache
		parseTime([]byte("2026-09-01 00:00:00"), &dc)
		cached, okCached := parseTime([]byte(s), &dc)
		if ok != okCached || !got.Equal(cached) {
			t.Errorf("parseTime(%q) = %v, %v; with a warm date cache %v, %v", s, got, ok, cached, okCached)
		}
		// Again, the cache now holding s's own minute when s was valid.
		cached, okCached = parseTime([]byte(s), &dc)
		if ok != okCached || !got.Equal(cached) {
			t.Errorf("parseTime(%q) = %v, %v; with its own minute cached %v, %v", s, got, ok, cached, okCached)
		}
		if !ok {
			return
		}
		if got.Location() != time.UTC {
			t.Errorf("parseTime(%q) is in %v, not UTC", s, got.Location())
		}
		layouts := timeLayouts
		if strings.HasSuffix(s, "UTC") {
			// An abbreviation layout reads any letters or "-05" as a zone
			// of offset zero: only UTC means what parseTime reads.
			layouts = []string{"2006-01-02 15:04:05MST", "2006-01-02 15:04:05 MST", "2006-01-02T15:04:05MST", "2006-01-02T15:04:05 MST"}
		}
		for _, layout := range layouts {
			want, err := time.Parse(layout, s)
			if err != nil {
				continue
			}
			if !got.Equal(want) {
				t.Errorf("parseTime(%q) = %v; time.Parse(%q) = %v", s, got, layout, want.UTC())
			}
		}
	})
}

// FuzzParseIntMatchesStrconv checks parseInt against strconv.ParseInt;
// beyond it, parseInt reads only a fraction of zeros ("12.0"). It refuses
// -2⁶³, whose magnitude is no int64: no count comes near it.
func FuzzParseIntMatchesStrconv(f *testing.F) {
	for _, s := range []string{"0", "-7", "+7", "12.0", "12.", "999999999999999999", "9223372036854775807",
		"9223372036854775808", "-9223372036854775808", "1e3", "00000000000000000001"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := parseInt([]byte(s))
		want, err := strconv.ParseInt(s, 10, 64)
		switch {
		case err == nil && want != math.MinInt64 && (!ok || got != want):
			t.Errorf("parseInt(%q) = %d, %v; strconv.ParseInt = %d", s, got, ok, want)
		case err != nil && ok:
			whole, frac, dot := strings.Cut(s, ".")
			w, werr := strconv.ParseInt(whole, 10, 64)
			if !dot || strings.Trim(frac, "0") != "" || werr != nil || w != got {
				t.Errorf("parseInt(%q) = %d, which strconv.ParseInt refuses (%v)", s, got, err)
			}
		}
	})
}

// FuzzParseDecimalMatchesNewFromString checks parseAmount against
// decimal.NewFromString.
func FuzzParseDecimalMatchesNewFromString(f *testing.F) {
	for _, s := range []string{
		"0", "0.000123", "1.2345e-05", "-4", "+2.50", ".5", "5.", "1E+3",
		"0.30000000000000004441", "123456789012345678901234", "0e0", "-0.000",
		"999999999999999999", "1000000000000000000", "12345678901234567.89e-3",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := parseAmount([]byte(s))
		want, err := decimal.NewFromString(s)
		if !ok || err != nil {
			return
		}
		if !got.Decimal().Equal(want) {
			t.Errorf("parseAmount(%q) = %s; decimal.NewFromString = %s", s, got, want)
		}
	})
}
