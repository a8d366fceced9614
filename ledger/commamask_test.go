package ledger

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestCommaMasks checks the marks of commas (and of quotes, by
// commaQuoteMasks) against a byte-by-byte look, on blocks of every density of commas, read at every alignment.
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
				if rng.IntN(64) < tt.share/2 {
					buf[i] = '"'
				}
				if rng.IntN(64) < tt.share/4 {
					buf[i] = '\n'
				}
			}
			for align := range 16 {
				src := buf[align : align+64*8]
				got, both, quotes := make([]uint64, 8), make([]uint64, 8), make([]uint64, 8)
				three, quotes3, lines := make([]uint64, 8), make([]uint64, 8), make([]uint64, 8)
				commaMasks(got, src)
				commaQuoteMasks(both, quotes, src)
				if nul := commaQuoteLineMasks(three, quotes3, lines, src); nul != bytes.Contains(src, []byte{0}) {
					t.Fatalf("align %d: nul %t", align, nul)
				}
				if align == 3 { // a NUL byte at each place in turn
					for at := range src {
						keep := src[at]
						src[at] = 0
						if !commaQuoteLineMasks(three, quotes3, lines, src) {
							t.Fatalf("a NUL byte at %d not told", at)
						}
						src[at] = keep
					}
					commaQuoteLineMasks(three, quotes3, lines, src)
				}
				for i, m := range got {
					var want, wantQ, wantL uint64
					for j, c := range src[64*i : 64*i+64] {
						if c == ',' {
							want |= 1 << j
						}
						if c == '"' {
							wantQ |= 1 << j
						}
						if c == '\n' {
							wantL |= 1 << j
						}
					}
					if three[i] != want || quotes3[i] != wantQ || lines[i] != wantL {
						t.Fatalf("align %d block %d: commaQuoteLineMasks %064b %064b %064b, want %064b %064b %064b",
							align, i, three[i], quotes3[i], lines[i], want, wantQ, wantL)
					}
					if m != want || both[i] != want {
						t.Fatalf("align %d block %d: marks %064b and %064b, want %064b", align, i, m, both[i], want)
					}
					if quotes[i] != wantQ {
						t.Fatalf("align %d block %d: quotes %064b, want %064b", align, i, quotes[i], wantQ)
					}
				}
			}
		})
	}
}

// TestSplitMaskedOnLongChunks checks splitMasked and quotedMasked against
// the plain split on chunks of 48 KiB: lines of every length (some of many
// words of marks), blank ones, CRLF ends, quoted fields with commas,
// quotes and line breaks, JSON columns with their quotes doubled, stray
// quotes, and a last line with and without its newline.
func TestSplitMaskedOnLongChunks(t *testing.T) {
	const step = 4 << 10
	rng := rand.New(rand.NewPCG(3, 4))
	field := func() string {
		switch rng.IntN(24) {
		case 0:
			return `"a,b ""q"" ` + strings.Repeat("x", rng.IntN(80)) + "\nc\""
		case 1:
			return strings.Repeat("y", 2*step+rng.IntN(200)) // a line of many words of marks
		case 2, 3, 4, 5, 6, 7, 8, 9: // a JSON column of a dump: doubled quotes at any place of a word
			var q strings.Builder
			q.WriteString(`"`)
			for range rng.IntN(40) {
				q.WriteString([]string{`""`, "k", ", ", `""""`, "{", strings.Repeat("v", rng.IntN(20))}[rng.IntN(6)])
			}
			return q.String() + `"`
		case 10:
			return []string{`a"b`, `"a"b`, `"a""`, `""`}[rng.IntN(4)] // a stray quote, text after the closing one
		default:
			return strings.Repeat("z", rng.IntN(40))
		}
	}
	for _, end := range []string{"\n", ""} {
		var b strings.Builder
		for b.Len() < 12*step {
			switch rng.IntN(20) {
			case 0:
				b.WriteString("\n")
				continue
			case 1:
				b.WriteString("\r\n")
				continue
			}
			for i := range 1 + rng.IntN(30) {
				if i > 0 {
					b.WriteString(",")
				}
				b.WriteString(field())
			}
			if rng.IntN(4) == 0 {
				b.WriteString("\r")
			}
			b.WriteString("\n")
		}
		b.WriteString("last,line" + end)
		checkSplitInto(t, []byte(b.String()))
	}
}

// TestQuotedMaskedAtEveryAlignment: a JSON column's doubled quotes, and
// its closing quote, fall at every place of a word of marks (a pair split
// between two words among them), and the fields are the plain split's.
func TestQuotedMaskedAtEveryAlignment(t *testing.T) {
	var b strings.Builder
	for pad := range 140 {
		for _, text := range []string{`""`, `a""b`, `""""`, `{""k"": """"}`, `x""` + strings.Repeat("y", 63) + `""z`} {
			b.WriteString(strings.Repeat("p", pad) + `,"` + text + `",z` + "\n")
		}
	}
	checkSplitInto(t, []byte(b.String()))
}
