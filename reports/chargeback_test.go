package reports

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
)

// TestChargebackTableCountsCacheHits: the table's row accounting lists
// response-cache hits, so that its counts add up to the rows read.
func TestChargebackTableCountsCacheHits(t *testing.T) {
	from := time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)
	until := from.AddDate(0, 1, 0)
	e := pricing.New(testCatalog(t), pricing.Options{Dims: []pricing.Dim{pricing.DimKey}, Since: from, Until: until})
	priced := flashCall("a", "2026-09-01T02:00:00Z", "ci-bot", "alpha", "u1")
	hit := flashCall("b", "2026-09-01T03:00:00Z", "ci-bot", "alpha", "u1")
	hit.CacheHit = true
	for _, c := range []ledger.Call{priced, hit} {
		e.AddPriced(&c)
	}
	cb, err := e.Chargeback(from, until, nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Chargeback(&buf, Table, cb); err != nil {
		t.Fatal(err)
	}
	// Two rows read: one priced, one answered from the gateway's cache.
	want := "rows      read 2: priced 1, unpriced 0, retired 0, failed 0, duplicate 0, rejected 0, outside 0, cache hit 1\n"
	if !strings.Contains(buf.String(), want) {
		t.Errorf("table lacks %q:\n%s", want, buf.String())
	}
}

// TestChargebackJSONIsTheDocument: the JSON written a line at a time is
// byte for byte the indented JSON of the whole document, with no line,
// one, and several (a key's alias, an excluded line, hostile text).
func TestChargebackJSONIsTheDocument(t *testing.T) {
	from := time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)
	until := from.AddDate(0, 1, 0)
	tests := []struct {
		name     string
		calls    []ledger.Call
		excluded bool
	}{
		{name: "no line"},
		{name: "one line", calls: []ledger.Call{flashCall("a", "2026-09-01T02:00:00Z", "ci-bot", "alpha", "u1")}},
		{name: "several lines, one excluded", excluded: true, calls: []ledger.Call{
			flashCall("a", "2026-09-01T02:00:00Z", "ci-bot", "alpha", "u1"),
			flashCall("b", "2026-09-02T02:00:00Z", "", "beta", "u2"),
			flashCall("c", "2026-09-03T02:00:00Z", "q\"\n<&>\t", "gamma", "u3"),
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := pricing.New(testCatalog(t), pricing.Options{Dims: []pricing.Dim{pricing.DimKey, pricing.DimDay}, Since: from, Until: until})
			for i := range tc.calls {
				e.AddPriced(&tc.calls[i])
			}
			cb, err := e.Chargeback(from, until, nil)
			if err != nil {
				t.Fatal(err)
			}
			lines, err := pricing.Collect(cb.Lines())
			if err != nil {
				t.Fatal(err)
			}
			if tc.excluded {
				l := lines[0]
				cb.Excluded = &l
			}
			var got bytes.Buffer
			if err := Chargeback(&got, JSON, cb); err != nil {
				t.Fatal(err)
			}
			doc := newChargebackDoc(cb)
			for i := range lines {
				doc.Lines = append(doc.Lines, newChargebackLineDoc(cb, &lines[i], true))
			}
			var want bytes.Buffer
			if err := writeJSON(&want, doc); err != nil {
				t.Fatal(err)
			}
			if got.String() != want.String() {
				t.Errorf("got\n%s\nwant\n%s", got.String(), want.String())
			}
			if n := strings.Count(got.String(), `"official"`); n != len(lines)+1+boolInt(tc.excluded) {
				t.Errorf("%d official amounts, want one per line, the gateway's and the excluded", n)
			}
		})
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
