package reports

import (
	"bytes"
	"encoding/csv"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/pricing"
)

// TestCSVRowIsEncodingCSV holds appendCSVRecord to encoding/csv's Writer,
// byte for byte: fields it must quote (commas, quotes, line breaks, a
// leading space of any kind, `\.`), fields it must not, and random fields
// made of those characters.
func TestCSVRowIsEncodingCSV(t *testing.T) {
	cases := []struct {
		name   string
		fields []string
	}{
		{name: "plain", fields: []string{"deepseek-v4-flash", "0.0014976", "-3"}},
		{name: "empty fields", fields: []string{"", "", ""}},
		{name: "comma and quote", fields: []string{"a,b", `say "hi"`, `"`}},
		{name: "line breaks", fields: []string{"a\nb", "a\r\nb", "\r"}},
		{name: "leading spaces", fields: []string{" a", "\ta", "\u00a0a", "\u2003a", "a "}},
		{name: "backslash dot", fields: []string{`\.`, `\.x`, `x\.`}},
		{name: "not UTF-8", fields: []string{"\xff", "\xe2\x80"}},
	}
	check := func(t *testing.T, fields []string) {
		t.Helper()
		var want bytes.Buffer
		cw := csv.NewWriter(&want)
		if err := cw.Write(fields); err != nil {
			t.Fatal(err)
		}
		cw.Flush()
		if got := appendCSVRecord(nil, fields); string(got) != want.String() {
			t.Fatalf("%q: got %q, want encoding/csv's %q", fields, got, want.String())
		}
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { check(t, tc.fields) })
	}
	t.Run("random", func(t *testing.T) {
		rng := rand.New(rand.NewPCG(5, 26))
		parts := []string{"a", "Z", "0", ",", `"`, "\r", "\n", " ", "\t", "\u00a0", "\u3000", `\`, ".", "é", "\xff", "'", "="}
		for range 20000 {
			fields := make([]string, rng.IntN(5))
			for i := range fields {
				for range rng.IntN(4) {
					fields[i] += parts[rng.IntN(len(parts))]
				}
			}
			check(t, fields)
		}
	})
}

// TestCSVFieldEveryByte holds appendCSVRecord to encoding/csv's Writer on
// every byte value at every place of fields of 1 to 17 bytes (each place
// of csvSpecialIn's eight-byte words and of the last word, which overlaps
// them), among bytes of a plain letter or of 0xe9 (above 0x80, where
// csvSpecialIn's first test of a word clears a byte's high bit), first
// the same, then a leading space.
func TestCSVFieldEveryByte(t *testing.T) {
	for _, fill := range [][2]byte{{'m', 'm'}, {'m', ' '}, {0xe9, 0xe9}, {0xe9, ' '}} {
		for n := 1; n <= 17; n++ {
			for at := range n {
				for c := range 256 {
					b := bytes.Repeat([]byte{fill[0]}, n)
					b[0] = fill[1]
					b[at] = byte(c)
					field := string(b)
					var want bytes.Buffer
					cw := csv.NewWriter(&want)
					if err := cw.Write([]string{field}); err != nil {
						t.Fatal(err)
					}
					cw.Flush()
					if got := appendCSVRecord(nil, []string{field}); string(got) != want.String() {
						t.Fatalf("%q: got %q, want encoding/csv's %q", field, got, want.String())
					}
				}
			}
		}
	}
}

// TestReconciliationCSVIsEncodingCSV holds the reconciliation's CSV to
// encoding/csv's Writer on the rows made from each group's fields (its
// keys through sheetText, its decimals' String): values against a
// column's last one (the first group's, equal bytes at another address, a
// value to quote or guard after a plain one of its length, empty values),
// and the day and the hour as columns together; the currency likewise.
func TestReconciliationCSVIsEncodingCSV(t *testing.T) {
	day := time.Date(2026, 10, 1, 0, 0, 0, 0, time.FixedZone("CST", 8*3600))
	base := pricing.Group{Key: pricing.GroupKey{Outcome: pricing.Priced}, Currencies: []string{"USD"}, Calls: 3, PricedCalls: 2,
		Tokens:   pricing.TokenCounts{Input: 1234, CacheRead: 56, Output: 789, Reasoning: 12, CacheWrite1h: 4, WebSearch: 101},
		Official: dec("0.000277602"), Recorded: dec("12.5"), Gap: dec("-12.499722398"), Ratio: decimal.NewNullDecimal(dec("45028.494031"))}
	gs := groupsOfValues(t, base, day, []keyValues{
		{"", "k,1", "a"},
		{"m123", strings.Clone("k,1"), ""},
		{"m\"3", "k_11", "=a"},
		{strings.Clone("m\"3"), " k11", strings.Clone("=a")},
		{"m123", "k\n11", "-a"},
		{"", "", "b"},
	})
	// Currencies: the same, equal bytes at another address, another, one
	// to quote after a plain one of its length, none (the run's), two.
	currencies := [][]string{{"USD"}, {strings.Clone("USD")}, {"CNY"}, {"C,Y"}, nil, {"USD", "CNY"}}
	wantCurrency := []string{"USD", "USD", "CNY", "C,Y", "USD", "USD+CNY"}
	for i := range gs {
		gs[i].Currencies = currencies[i]
	}
	r := sampleReconciliation()
	r.By = []pricing.Dim{pricing.DimModel, pricing.DimKey, pricing.DimDay, pricing.DimHour}
	r.SetGroups(gs)

	var want bytes.Buffer
	cw := csv.NewWriter(&want)
	cw.Write([]string{"model", "key", "day", "hour", "key_alias", "calls", "priced_calls", "input", "cache_read", "cache_write", "output", "reasoning",
		"official", "recorded", "gap", "ratio", "cache_write_1h", "web_search", "web_fetch", "file_search", "currency"})
	for i, g := range gs {
		row := []string{}
		for _, d := range r.By {
			row = append(row, sheetText(g.Key.Value(d)))
		}
		tk := g.Tokens
		row = append(row, sheetText(g.KeyAlias))
		for _, n := range []int64{g.Calls, g.PricedCalls, tk.Input, tk.CacheRead, tk.CacheWrite, tk.Output, tk.Reasoning} {
			row = append(row, strconv.FormatInt(n, 10))
		}
		row = append(row, g.Official.String(), g.Recorded.String(), g.Gap.String(), g.Ratio.Decimal.StringFixed(pricing.RatioPlaces))
		for _, n := range []int64{tk.CacheWrite1h, tk.WebSearch, tk.WebFetch, tk.FileSearch} {
			row = append(row, strconv.FormatInt(n, 10))
		}
		cw.Write(append(row, wantCurrency[i]))
	}
	cw.Flush()
	var got bytes.Buffer
	if err := csvReconciliation(&got, r); err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Fatalf("got:\n%s\nwant encoding/csv's:\n%s", got.String(), want.String())
	}
}
