package ledger

import (
	"fmt"
	"testing"
	"unsafe"
)

// TestInternerKeepsItsValuesPastTheBound checks that values read once the
// interner is full come back right, that it holds no more than its bound,
// and that the values it took before stay shared: the map is not dropped
// and rebuilt.
func TestInternerKeepsItsValuesPastTheBound(t *testing.T) {
	var in interner
	first := in.get([]byte("value-0000000"))
	for i := range maxInterned + 1000 {
		v := fmt.Sprintf("value-%07d", i)
		if got := in.get([]byte(v)); got != v {
			t.Fatalf("get(%q) = %q", v, got)
		}
	}
	if len(in.m) != maxInterned {
		t.Fatalf("the interner holds %d values, want its bound %d", len(in.m), maxInterned)
	}
	in.cache = [len(in.cache)]string{} // read from the map, not the cache
	again := in.get([]byte("value-0000000"))
	if unsafe.StringData(again) != unsafe.StringData(first) {
		t.Fatal("a value interned before the bound was reached is copied again: the map was rebuilt")
	}
}
