package ledger

import (
	"math/rand/v2"
	"testing"
)

// TestCommaMasks checks the marks of commas against a byte-by-byte
// look, on blocks of every density of commas, read at every alignment.
func TestCommaMasks(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	buf := make([]byte, 64*8+16)
	for _, tt := range []struct {
		name  string
		share int // in 64ths: how many bytes are commas
	}{
		{"no comma", 0}, {"a few", 4}, {"half", 32}, {"all commas", 64},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for i := range buf {
				buf[i] = byte('a' + rng.IntN(26))
				if rng.IntN(64) < tt.share {
					buf[i] = ','
				}
				if rng.IntN(50) == 0 { // bytes next to a comma: a minus XORs to 1
					buf[i] = []byte{'-', '.', 0xac, 0x2d, 0x0c}[rng.IntN(5)]
				}
			}
			for align := range 16 {
				src := buf[align : align+64*8]
				got := make([]uint64, 8)
				commaMasks(got, src)
				for i, m := range got {
					var want uint64
					for j, c := range src[64*i : 64*i+64] {
						if c == ',' {
							want |= 1 << j
						}
					}
					if m != want {
						t.Fatalf("align %d block %d: marks %064b, want %064b", align, i, m, want)
					}
				}
			}
		})
	}
}
