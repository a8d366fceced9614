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
