package ledger

import (
	"bytes"
	"testing"
)

// TestPlainRunStopsWhereBytesDo: the word-at-a-time run through a string
// stops at the first byte that ends it, wherever it lies in a word, and
// also when a byte that does not end it (' ', '!', 0x7f) sits below.
func TestPlainRunStopsWhereBytesDo(t *testing.T) {
	for c := range 256 {
		for at := range 19 {
			for _, fill := range []byte{'a', ' ', 0x7f, '!'} {
				b := bytes.Repeat([]byte{fill}, 19)
				b[at] = byte(c)
				want := len(b)
				if strStop[c] {
					want = at
				}
				if got := plainRun(b, 0); got != want {
					t.Fatalf("byte %#x at %d among %q: stop %d, want %d", c, at, fill, got, want)
				}
			}
		}
	}
}

// TestPlainRunFirstOfTwo: of two stops in a word, the first is found,
// whatever the second (a borrow from a control byte must not mark the
// bytes above it first).
func TestPlainRunFirstOfTwo(t *testing.T) {
	for _, pair := range [][2]byte{{0x1f, '"'}, {'"', 0x00}, {0x00, 0x20}, {0x80, 0x1f}, {'\\', 0xff}} {
		for at := range 7 {
			b := bytes.Repeat([]byte{'x'}, 16)
			b[at], b[at+1] = pair[0], pair[1]
			if got := plainRun(b, 0); got != at {
				t.Errorf("%#x %#x at %d: stop %d", pair[0], pair[1], at, got)
			}
		}
	}
}

// TestFirstCapitalFindsEveryCapital: each ASCII byte, at every place of a
// name of every length up to 19 bytes among others, is found first
// exactly when it is a capital letter before any other; '@' and '[', next
// to 'A' and 'Z', never are.
func TestFirstCapitalFindsEveryCapital(t *testing.T) {
	for c := range 0x80 {
		for n := 1; n <= 19; n++ {
			for at := range n {
				for _, fill := range []byte{'a', '@', '[', 0x7f, ' ', 'Z'} {
					b := bytes.Repeat([]byte{fill}, n)
					b[at] = byte(c)
					want := -1
					for i, x := range b {
						if 'A' <= x && x <= 'Z' {
							want = i
							break
						}
					}
					if got := firstCapital(b); got != want {
						t.Fatalf("byte %#x at %d of %d among %q: %d, want %d", c, at, n, fill, got, want)
					}
					// noCapital on the name inside a text, 'Q' before it: never
					// true with a capital in the name.
					text := append([]byte("QQQQQQQQ"), b...)
					if noCapital(text, 8, 8+n) && want >= 0 {
						t.Fatalf("byte %#x at %d of %d among %q: noCapital", c, at, n, fill)
					}
					if !noCapital(append(bytes.Repeat([]byte{'q'}, 8), b...), 8, 8+n) && want < 0 {
						t.Fatalf("byte %#x at %d of %d among %q: not noCapital", c, at, n, fill)
					}
				}
			}
		}
	}
}

// TestPlainRunMatchesWords: plainRun (vectorised where it is) stops where
// the word-at-a-time plainRunWords does, from every start in buffers of
// every length up to 80 bytes, a stop byte or none at any place.
func TestPlainRunMatchesWords(t *testing.T) {
	stops := []byte{'"', '\\', 0x00, 0x1f, 0x80, 0xff, 0xc3}
	plain := []byte{'a', ' ', '!', 0x7f, '#', '[', ']', 0x20, 0x7e}
	for n := range 81 {
		for at := -1; at < n; at++ {
			b := make([]byte, n)
			for k := range b {
				b[k] = plain[(k*7+n)%len(plain)]
			}
			if at >= 0 {
				b[at] = stops[(at+n)%len(stops)]
			}
			for i := 0; i <= n; i++ {
				if got, want := plainRun(b, i), plainRunWords(b, i); got != want {
					t.Fatalf("%q from %d: %d, want %d", b, i, got, want)
				}
			}
		}
	}
}
