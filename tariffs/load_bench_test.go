package tariffs

import "testing"

// BenchmarkLoadEmbedded is what every command pays before it reads a call:
// the embedded catalog parsed, validated and indexed.
func BenchmarkLoadEmbedded(b *testing.B) {
	for b.Loop() {
		if cat, ps := Load(""); cat == nil {
			b.Fatal(ps)
		}
	}
}
