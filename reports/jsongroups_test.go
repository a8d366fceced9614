package reports

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
)

// TestGroupsStreamAsTheDocument checks the reconciliation's JSON, written
// group by group, against the indented JSON of its whole document, byte for
// byte: values that need escaping, every dimension, tool uses and 1-hour
// cache writes (omitted when zero), no groups, no dimensions.
func TestGroupsStreamAsTheDocument(t *testing.T) {
	day := time.Date(2026, 10, 1, 0, 0, 0, 0, time.FixedZone("CST", 8*3600))
	withGroups := func(by []pricing.Dim, gs ...pricing.Group) *pricing.Reconciliation {
		r := sampleReconciliation()
		r.By = by
		r.SetGroups(gs)
		return r
	}
	odd := pricing.Group{Key: pricing.GroupKey{Model: "a<b>&c", Key: "k\"\\\n\t\x00", Team: "é 中 \u2028", User: "bad \xff utf-8",
		Group: "g", Start: day, Period: "peak", Outcome: pricing.Priced, Version: "v1", Host: "azure"},
		KeyAlias: "alias <x>", Calls: 3, PricedCalls: 2, CacheHitTokens: 8,
		Tokens:   pricing.TokenCounts{Input: 1, CacheRead: 2, CacheWrite: 3, CacheWrite1h: 4, Output: 5, Reasoning: 1, WebSearch: 6, FileSearch: 7},
		Official: dec("1.25"), Recorded: dec("0.5"), Gap: dec("0.75"), Ratio: decimal.NewNullDecimal(dec("0.4"))}
	unpriced := pricing.Group{Key: pricing.GroupKey{Model: "m", Outcome: pricing.Unpriced}, Calls: 1,
		Official: decimal.Zero, Recorded: dec("0.1"), Gap: dec("-0.1")}
	// Six models in turn, one to escape, more than the values a field
	// keeps as found plain: each written as the document writes it.
	var turns []pricing.Group
	for i := range 18 {
		g := unpriced
		g.Key.Model = []string{"m1", "m2", "m<3>", "m4", "m5", "m6"}[i%6]
		g.Key.Key = []string{"k1", "k\"2"}[i/9]
		turns = append(turns, g)
	}
	// Values against the field's last one: the first group's empty and
	// escaped values, the same bytes at another address, a value to escape
	// after a plain one of its length and the other way round, an empty
	// value after others, an alias missing between two.
	againstLast := groupsOfValues(t, unpriced, day, []keyValues{
		{"", "k<1>", "a"},
		{"m123", strings.Clone("k<1>"), ""},
		{"m<3>", "k_11", "a<"},
		{strings.Clone("m<3>"), "k&11", strings.Clone("a<")},
		{"m123", strings.Clone("k&11"), ""},
		{"", "", "b"},
	})
	all := []pricing.Dim{pricing.DimModel, pricing.DimGroup, pricing.DimKey, pricing.DimTeam, pricing.DimUser,
		pricing.DimDay, pricing.DimPeriod, pricing.DimVersion, pricing.DimHost}
	tests := []struct {
		name string
		r    *pricing.Reconciliation
	}{
		{name: "the sample", r: sampleReconciliation()},
		{name: "no groups", r: withGroups([]pricing.Dim{pricing.DimModel})},
		{name: "no dimensions", r: withGroups(nil, unpriced)},
		{name: "every dimension, values to escape", r: withGroups(all, odd, unpriced, odd)},
		{name: "values in turn, one to escape", r: withGroups([]pricing.Dim{pricing.DimModel, pricing.DimKey}, turns...)},
		{name: "by hour", r: withGroups([]pricing.Dim{pricing.DimHour, pricing.DimModel}, odd)},
		{name: "values against the last ones", r: withGroups([]pricing.Dim{pricing.DimModel, pricing.DimKey, pricing.DimDay}, againstLast...)},
		{name: "by day and hour, values against the last ones", r: withGroups([]pricing.Dim{pricing.DimHour, pricing.DimKey, pricing.DimDay}, againstLast...)},
		{name: "by alias only, missing first", r: withGroups(nil, againstLast[1], againstLast[0], againstLast[1])},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var want, got bytes.Buffer
			if err := writeJSON(&want, mustDoc(t, tc.r)); err != nil {
				t.Fatal(err)
			}
			if err := jsonReconciliation(&got, tc.r); err != nil {
				t.Fatal(err)
			}
			if got.String() != want.String() {
				t.Fatalf("streamed:\n%s\nwant the document's:\n%s", got.String(), want.String())
			}
			if gs, _ := pricing.Collect(tc.r.Groups()); len(gs) > 0 && !strings.Contains(got.String(), `"groups": [`+"\n") {
				t.Fatalf("no groups written:\n%s", got.String())
			}
		})
	}
}

// TestGroupsStreamInPieces checks that many groups are written in several
// writes, each group whole, and equal the document.
func TestGroupsStreamInPieces(t *testing.T) {
	r := sampleReconciliation()
	g := sampleGroups()[0]
	var gs []pricing.Group
	for range 2000 {
		gs = append(gs, g)
	}
	r.SetGroups(gs)
	var want bytes.Buffer
	if err := writeJSON(&want, mustDoc(t, r)); err != nil {
		t.Fatal(err)
	}
	w := &countingWriter{}
	if err := jsonReconciliation(w, r); err != nil {
		t.Fatal(err)
	}
	if w.b.String() != want.String() || w.writes < 2 {
		t.Fatalf("%d writes, equal %v: want several, equal to the document", w.writes, w.b.String() == want.String())
	}
}

type countingWriter struct {
	b      bytes.Buffer
	writes int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.writes++
	return c.b.Write(p)
}

// TestAppendDecimalIsString checks appendDecimal against Decimal.String
// on hand-picked and random decimals, small and past an int64.
func TestAppendDecimalIsString(t *testing.T) {
	cases := []string{"0", "-0", "0.000", "1", "-1", "10", "0.5", "-0.5", "0.0003348", "-7.854900427", "65.83571422",
		"27628.724860816000", "100.00", "123456789012345678", "-123456789012345678", "1234567890123456789",
		"0.000000000000000001", "99999999999999999.9", "1e3", "-1.5e-20", "340282366920938463463374607431768211456.25"}
	for _, s := range cases {
		d := decimal.RequireFromString(s)
		if got := string(appendDecimal(nil, d)); got != d.String() {
			t.Errorf("appendDecimal(%s) = %q, want String's %q", s, got, d.String())
		}
	}
	rng := rand.New(rand.NewPCG(9, 4))
	for range 50000 {
		d := decimal.New(rng.Int64N(1<<uint(rng.IntN(63)))-rng.Int64N(1<<uint(rng.IntN(63))), -int32(rng.IntN(25)))
		if rng.IntN(10) == 0 {
			d = d.Mul(d)
		}
		if got := string(appendDecimal(nil, d)); got != d.String() {
			t.Fatalf("appendDecimal(%s) = %q, want String's %q", d.String(), got, d.String())
		}
	}
}

// TestAppendJSONStringIsMarshal checks appendJSONString against
// json.Marshal: every byte value at every place of strings of 1 to 17
// bytes (each place of the eight-byte words and of the bytes after them),
// the characters that are escaped next to those that are not, and random
// strings of bytes and of runes.
func TestAppendJSONStringIsMarshal(t *testing.T) {
	check := func(s string) {
		t.Helper()
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendJSONString([]byte("x"), s); string(got) != "x"+string(want) {
			t.Fatalf("appendJSONString(%q) = %q, want x%s", s, got, want)
		}
	}
	for _, s := range []string{"", "a", "key-0000001", "0000000000000000000000000000000000000000000000000000000000000001",
		"a<b", "a>b", "a&b", "a\"b", "a\\b", "a\x7fb", "a\x1fb", "a b", "!#$%'()*+,-./;=?@[]^_`{|}~", "é", "\u2028"} {
		check(s)
	}
	for n := 1; n <= 17; n++ {
		for at := range n {
			for c := range 256 {
				b := []byte(strings.Repeat("m", n))
				b[at] = byte(c)
				check(string(b))
			}
		}
	}
	rng := rand.New(rand.NewPCG(3, 8))
	for range 20000 {
		b := make([]byte, rng.IntN(40))
		for i := range b {
			b[i] = byte(0x1e + rng.IntN(0x64)) // mostly printable ASCII, some of each escaped kind
		}
		check(string(b))
		check(string([]rune{rune(rng.IntN(0x3000)), 'k', rune(rng.IntN(0x80))}) + string(b))
	}
}

// TestAppendIntIsFormatInt checks appendInt against strconv.FormatInt:
// every count below 200,000, each power of ten and its neighbours, the
// bounds of the digits it writes itself (10^8) and of an int64, negatives,
// and random counts.
func TestAppendIntIsFormatInt(t *testing.T) {
	check := func(n int64) {
		t.Helper()
		if got, want := string(appendInt([]byte("x"), n)), "x"+strconv.FormatInt(n, 10); got != want {
			t.Fatalf("appendInt(%d) = %q, want %q", n, got, want)
		}
	}
	for n := range int64(200000) {
		check(n)
	}
	for p := int64(1); p <= 1e18; p *= 10 {
		check(p - 1)
		check(p)
		check(p + 1)
		check(-p)
	}
	for _, n := range []int64{99999999, 100000000, math.MaxInt64, math.MinInt64, -1} {
		check(n)
	}
	rng := rand.New(rand.NewPCG(5, 7))
	for range 100000 {
		check(rng.Int64N(1 << uint(1+rng.IntN(62))))
	}
	// appendDigits, which appendInt and the money's coefficients use, on
	// every length of a uint64.
	for _, n := range []uint64{0, 9, 10, 99, 100, 1<<63 - 1, 1 << 63, 1e19 - 1, 1e19, math.MaxUint64} {
		if got, want := string(appendDigits([]byte("x"), n)), "x"+strconv.FormatUint(n, 10); got != want {
			t.Fatalf("appendDigits(%d) = %q, want %q", n, got, want)
		}
	}
	for range 100000 {
		n := rng.Uint64() >> uint(rng.IntN(64))
		if got, want := string(appendDigits(nil, n)), strconv.FormatUint(n, 10); got != want {
			t.Fatalf("appendDigits(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestAppendFixedIsStringFixed checks appendFixed against
// Decimal.StringFixed at the places the reports use, on hand-picked and
// random decimals: halves either way, negatives that round to zero, more
// and fewer decimals than asked, and coefficients past an int64.
func TestAppendFixedIsStringFixed(t *testing.T) {
	cases := []struct {
		d      string
		places int32
		want   string
	}{
		{"0", 4, "0.0000"},
		{"1.23455", 4, "1.2346"},                               // half: away from zero
		{"-1.23455", 4, "-1.2346"},                             // half, negative: away from zero
		{"1.234549", 4, "1.2345"},                              // below half
		{"-0.00004", 4, "0.0000"},                              // a negative that rounds to zero has no sign
		{"-0.00005", 4, "-0.0001"},                             // half of the last place, negative
		{"0.5", 6, "0.500000"},                                 // fewer decimals: zeros added
		{"12", 2, "12.00"},                                     // an integer
		{"0.000123", 6, "0.000123"},                            // leading zeros after the point
		{"-0.9999995", 6, "-1.000000"},                         // rounding carries into the units
		{"1234567890123456789", 4, "1234567890123456789.0000"}, // past 18 digits
		{"1e3", 2, "1000.00"},                                  // a positive exponent
	}
	for _, c := range cases {
		d := decimal.RequireFromString(c.d)
		if got := string(appendFixed(nil, d, c.places)); got != c.want || got != d.StringFixed(c.places) {
			t.Errorf("appendFixed(%s, %d) = %q, want %q (StringFixed %q)", c.d, c.places, got, c.want, d.StringFixed(c.places))
		}
	}
	rng := rand.New(rand.NewPCG(3, 7))
	for range 100000 {
		d := decimal.New(rng.Int64N(1<<uint(rng.IntN(63)))-rng.Int64N(1<<uint(rng.IntN(63))), -int32(rng.IntN(22)))
		places := []int32{0, 2, DisplayPlaces, pricing.RatioPlaces, 9}[rng.IntN(5)]
		if got, want := string(appendFixed(nil, d, places)), d.StringFixed(places); got != want {
			t.Fatalf("appendFixed(%s, %d) = %q, want StringFixed's %q", d.String(), places, got, want)
		}
	}
}

// TestAppendAmountIsString checks appendAmount and appendAmountFixed
// against Decimal.String and StringFixed on hand-picked and random
// amounts: coefficients of 18 and 19 digits and the int64 bounds, a
// positive exponent, and amounts past an int64 (kept as decimals).
func TestAppendAmountIsString(t *testing.T) {
	cases := []ledger.Amount{ledger.NewAmount(0, 0), ledger.NewAmount(0, -3), ledger.NewAmount(-5, -1), ledger.NewAmount(12, 3),
		ledger.NewAmount(999999999999999999, -6), ledger.NewAmount(-999999999999999999, -18), ledger.NewAmount(1000000000000000000, -4),
		ledger.NewAmount(-1000000000000000000, -2), ledger.NewAmount(math.MaxInt64, -9), ledger.NewAmount(math.MinInt64, -9),
		ledger.NewAmount(7, -25), ledger.NewAmount(-3, -7), ledger.AmountOf(decimal.RequireFromString("340282366920938463463374607431768211456.25"))}
	check := func(a ledger.Amount) {
		t.Helper()
		d := a.Decimal()
		if got := string(appendAmount(nil, a)); got != d.String() {
			t.Fatalf("appendAmount(%s × 10^%d) = %q, want String's %q", d.Coefficient(), d.Exponent(), got, d.String())
		}
		for _, places := range []int32{0, DisplayPlaces, pricing.RatioPlaces} {
			if got, want := string(appendAmountFixed(nil, a, places)), d.StringFixed(places); got != want {
				t.Fatalf("appendAmountFixed(%s × 10^%d, %d) = %q, want StringFixed's %q", d.Coefficient(), d.Exponent(), places, got, want)
			}
		}
	}
	for _, a := range cases {
		check(a)
	}
	rng := rand.New(rand.NewPCG(11, 26))
	for range 100000 {
		a := ledger.NewAmount(rng.Int64N(1<<uint(rng.IntN(63)))-rng.Int64N(1<<uint(rng.IntN(63))), int32(rng.IntN(26))-22)
		if rng.IntN(10) == 0 {
			d := a.Decimal()
			a = ledger.AmountOf(d.Mul(d))
		}
		check(a)
	}
}

// TestDayTextIsValue checks the kept day's text against GroupKey.Value
// over days in order, a day again after another, the same instant in
// another zone (another date) and dimensions other than day.
func TestDayTextIsValue(t *testing.T) {
	shanghai, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Fatal(err)
	}
	d1 := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	d2 := d1.AddDate(0, 0, 1)
	cases := []struct {
		name string
		key  pricing.GroupKey
		dim  pricing.Dim
		want string
	}{
		{name: "first day", key: pricing.GroupKey{Start: d1}, dim: pricing.DimDay, want: "2026-10-01"},
		{name: "same day", key: pricing.GroupKey{Start: d1}, dim: pricing.DimDay, want: "2026-10-01"},
		{name: "next day", key: pricing.GroupKey{Start: d2}, dim: pricing.DimDay, want: "2026-10-02"},
		{name: "first day again", key: pricing.GroupKey{Start: d1}, dim: pricing.DimDay, want: "2026-10-01"},
		{name: "an hour before, in UTC", key: pricing.GroupKey{Start: d1.Add(-time.Hour)}, dim: pricing.DimDay, want: "2026-09-30"},
		{name: "the same instant in Shanghai, another date", key: pricing.GroupKey{Start: d1.Add(-time.Hour).In(shanghai)}, dim: pricing.DimDay, want: "2026-10-01"},
		{name: "a model", key: pricing.GroupKey{Model: "m", Start: d1}, dim: pricing.DimModel, want: "m"},
	}
	var c dayText
	for _, tc := range cases {
		if got := c.value(&tc.key, tc.dim); got != tc.want || got != tc.key.Value(tc.dim) {
			t.Errorf("%s: got %q, want %q (Value %q)", tc.name, got, tc.want, tc.key.Value(tc.dim))
		}
	}
}

// TestGroupDocFieldsStreamed fails when a field is added to groupDoc (or
// the order changes) without appendGroup, which writes the same fields
// by hand, knowing it.
func TestGroupDocFieldsStreamed(t *testing.T) {
	typ := reflect.TypeOf(groupDoc{})
	var got []string
	for i := range typ.NumField() {
		got = append(got, strings.Split(typ.Field(i).Tag.Get("json"), ",")[0])
	}
	if !slices.Equal(got, groupDocFields) {
		t.Fatalf("groupDoc has the fields %q, appendGroup writes %q: update appendGroup and groupDocFields", got, groupDocFields)
	}
}

// mustDoc returns the document of r.
func mustDoc(t *testing.T, r *pricing.Reconciliation) *reconciliationDoc {
	t.Helper()
	doc, err := newReconciliationDoc(r)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// keyValues are a group's model, key and alias.
type keyValues struct{ model, key, alias string }

// groupsOfValues returns base with each of values as its model, key and
// alias, two groups a day from day, an hour apart. The first two keys must
// be equal bytes at two addresses (the case of a value equal to the last
// one but not the same string).
func groupsOfValues(t *testing.T, base pricing.Group, day time.Time, values []keyValues) []pricing.Group {
	t.Helper()
	var gs []pricing.Group
	for i, v := range values {
		g := base
		g.Key.Model, g.Key.Key, g.KeyAlias = v.model, v.key, v.alias
		g.Key.Start = day.AddDate(0, 0, i/2).Add(time.Duration(i) * time.Hour)
		gs = append(gs, g)
	}
	if unsafe.StringData(gs[0].Key.Key) == unsafe.StringData(gs[1].Key.Key) {
		t.Fatal("a clone at the same address: the case does not test what it says")
	}
	return gs
}
