package textout

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestTerminalInjection checks the contract "nothing from input acts on
// the terminal": ANSI escapes, carriage returns, bidi overrides and
// invalid UTF-8 are written as Go escapes; ordinary text, CJK, accents
// and emoji are left alone.
func TestTerminalInjection(t *testing.T) {
	tests := []struct {
		name, in, want, lines string
	}{
		{name: "plain", in: "deepseek-flash", want: "deepseek-flash"},
		{name: "cjk and accents", in: "模型 café ü", want: "模型 café ü"},
		{name: "emoji", in: "team 🚀", want: "team 🚀"},
		{name: "ansi colour", in: "\x1b[31mred\x1b[0m", want: `\x1b[31mred\x1b[0m`},
		{name: "window title", in: "\x1b]0;pwned\x07", want: `\x1b]0;pwned\x07`},
		{name: "carriage return", in: "ok\rFAKE", want: `ok\rFAKE`},
		{name: "right-to-left override", in: "user\u202etxt.exe", want: `user\u202etxt.exe`},
		{name: "isolates and marks", in: "a\u2066b\u2067c\u2068d\u2069e\u200ef\u200fg\u061ch", want: `a\u2066b\u2067c\u2068d\u2069e\u200ef\u200fg\u061ch`},
		{name: "c1 control", in: "a\u009bb", want: `a\u009bb`},
		{name: "invalid utf-8", in: "a\xffb\xc3", want: `a\xffb\xc3`},
		{name: "line break and tab", in: "a\nb\tc", want: `a\nb\tc`, lines: "a\nb\tc"},
		{name: "crlf", in: "a\r\nb\r", want: `a\r\nb\r`, lines: "a\r\nb\\r"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Escape(tt.in); got != tt.want {
				t.Errorf("Escape(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if NeedsEscape(tt.in) != (tt.in != tt.want) {
				t.Errorf("NeedsEscape(%q) = %v", tt.in, NeedsEscape(tt.in))
			}
			lines := tt.lines
			if lines == "" {
				lines = tt.want
			}
			var buf bytes.Buffer
			if _, err := (&Escaping{W: &buf}).Write([]byte(tt.in)); err != nil || buf.String() != lines {
				t.Errorf("Escaping wrote %q (%v), want %q", buf.String(), err, lines)
			}
		})
	}
}

// TestEscapeASCIIPrefix holds Escape, EscapeLines, NeedsEscape and
// Escaping, which skip a leading run of printable ASCII without decoding
// it, to a rune by rune reference on random text of plain letters and
// every kind of character they treat apart.
func TestEscapeASCIIPrefix(t *testing.T) {
	reference := func(s string, keepLayout bool) string {
		var b strings.Builder
		for i := 0; i < len(s); {
			r, n := utf8.DecodeRuneInString(s[i:])
			keep := !mustEscape(r, n) || (keepLayout && (r == '\n' || r == '\t' || (r == '\r' && strings.HasPrefix(s[i+1:], "\n"))))
			switch {
			case keep:
				b.WriteString(s[i : i+n])
			case n == 1 && r == utf8.RuneError:
				fmt.Fprintf(&b, `\x%02x`, s[i])
			case r == '\n':
				b.WriteString(`\n`)
			case r == '\t':
				b.WriteString(`\t`)
			case r == '\r':
				b.WriteString(`\r`)
			case r < 0x80:
				fmt.Fprintf(&b, `\x%02x`, r)
			case r < 0x10000:
				fmt.Fprintf(&b, `\u%04x`, r)
			default:
				fmt.Fprintf(&b, `\U%08x`, r)
			}
			i += n
		}
		return b.String()
	}
	rng := rand.New(rand.NewPCG(26, 12))
	parts := []string{"a", "Z", " ", "~", "\x7f", "\x1b", "\x00", "\n", "\t", "\r", "\r\n", "é", "模", "🚀", "\u202e", "\u009b", "\xff", "\xc3"}
	for range 20000 {
		var s string
		for range rng.IntN(8) {
			s += parts[rng.IntN(len(parts))]
		}
		if got, want := Escape(s), reference(s, false); got != want {
			t.Fatalf("Escape(%q) = %q, want %q", s, got, want)
		}
		want := reference(s, true)
		if got := EscapeLines(s); got != want {
			t.Fatalf("EscapeLines(%q) = %q, want %q", s, got, want)
		}
		if got := NeedsEscape(s); got != (reference(s, false) != s) {
			t.Fatalf("NeedsEscape(%q) = %v", s, got)
		}
		var buf bytes.Buffer
		if _, err := (&Escaping{W: &buf}).Write([]byte(s)); err != nil || buf.String() != want {
			t.Fatalf("Escaping wrote %q (%v), want %q", buf.String(), err, want)
		}
	}
}

// TestSafePrefixWordAtATime compares safePrefix and Printable, which test
// words of eight bytes, with a byte at a time, on text of every byte value
// at every place of up to two words and their neighbours, and on random
// text.
func TestSafePrefixWordAtATime(t *testing.T) {
	byteAtATime := func(s []byte, keepLayout bool) int {
		for i, c := range s {
			if (c < 0x20 || c >= 0x7f) && !(keepLayout && (c == '\n' || c == '\t')) {
				return i
			}
		}
		return len(s)
	}
	check := func(s []byte) {
		t.Helper()
		for _, keep := range []bool{false, true} {
			want := byteAtATime(s, keep)
			if got := safePrefix(s, keep); got != want {
				t.Fatalf("safePrefix(%q, %v) = %d, want %d", s, keep, got, want)
			}
			if got := safePrefixString(string(s), keep); got != want {
				t.Fatalf("safePrefix(string %q, %v) = %d, want %d", s, keep, got, want)
			}
		}
		if got, want := Printable(s), byteAtATime(s, false) == len(s); got != want {
			t.Fatalf("Printable(%q) = %v, want %v", s, got, want)
		}
	}
	for n := range 20 {
		for at := range n {
			for c := range 256 {
				s := []byte(strings.Repeat("a~ Z", 5)[:n])
				s[at] = byte(c)
				check(s)
			}
		}
	}
	rng := rand.New(rand.NewPCG(7, 12))
	edges := []byte{0x00, 0x09, 0x0a, 0x1f, 0x20, 0x21, 0x7e, 0x7f, 0x80, 0x9f, 0xa0, 0xdf, 0xe0, 0xff}
	for range 50000 {
		s := make([]byte, rng.IntN(40))
		for i := range s {
			switch rng.IntN(3) {
			case 0:
				s[i] = edges[rng.IntN(len(edges))]
			default:
				s[i] = byte(0x20 + rng.IntN(0x5f))
			}
		}
		check(s)
	}
}

// BenchmarkPrintable tests a line of a million groups' table: 157 bytes.
func BenchmarkPrintable(b *testing.B) {
	line := []byte(strings.Repeat("   deepseek-chat  sk-0123456789abcdef  2026-10-01   12  0.123456", 3)[:157])
	for b.Loop() {
		if !Printable(line) {
			b.Fatal("not printable")
		}
	}
}
