package tariffs

import "testing"

// BenchmarkLoadEmbedded is what every command pays before it reads a call:
// the embedded catalog parsed, validated and indexed. It builds the
// catalog anew each time (Load itself keeps the one a process built).
func BenchmarkLoadEmbedded(b *testing.B) {
	for b.Loop() {
		if cat, ps := loadLists("", nil); cat == nil {
			b.Fatal(ps)
		}
	}
}
