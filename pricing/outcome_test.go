package pricing

import (
	"reflect"
	"testing"
)

// TestRowsSubEveryField fills every field of Rows by reflection, so that a
// field added to Rows and forgotten by Sub fails here.
func TestRowsSubEveryField(t *testing.T) {
	var before, now Rows
	bv, nv := reflect.ValueOf(&before).Elem(), reflect.ValueOf(&now).Elem()
	for i := 0; i < bv.NumField(); i++ {
		if bv.Field(i).Kind() != reflect.Int64 {
			t.Fatalf("Rows.%s is a %s: Sub and this test subtract int64 counts", bv.Type().Field(i).Name, bv.Field(i).Kind())
		}
		bv.Field(i).SetInt(int64(10 * (i + 1)))     // 10, 20, 30, ...
		nv.Field(i).SetInt(int64(10*(i+1) + i + 1)) // 11, 22, 33, ...
	}
	got := reflect.ValueOf(now.Sub(before))
	for i := 0; i < got.NumField(); i++ {
		if g, want := got.Field(i).Int(), int64(i+1); g != want {
			t.Errorf("Sub: %s = %d, want %d", got.Type().Field(i).Name, g, want)
		}
	}
}

// TestRowsSubCountsEachOutcome counts rows of every outcome after a first
// stretch and checks that Sub gives the second stretch alone, adding up to
// its Read.
func TestRowsSubCountsEachOutcome(t *testing.T) {
	var r Rows
	r.countN(Priced, 5)
	r.countN(CacheHit, 2)
	before := r
	for o := Outcome(0); o < numOutcomes; o++ {
		r.countN(o, int64(o)+1) // priced 1, unpriced 2, ..., cache hit 7, overlap 8
	}
	got := r.Sub(before)
	want := Rows{Read: 36, Priced: 1, Unpriced: 2, Retired: 3, Failed: 4, Duplicate: 5 + 8, Outside: 6, CacheHit: 7}
	if got != want {
		t.Fatalf("Sub = %+v, want %+v", got, want)
	}
	if sum := got.Priced + got.Unpriced + got.Retired + got.Failed + got.Duplicate + got.Rejected + got.Outside + got.CacheHit; sum != got.Read {
		t.Errorf("parts add up to %d, read %d", sum, got.Read)
	}
}
