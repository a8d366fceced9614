package textout

import (
	"encoding/binary"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// Text read from input (a model name, a key alias, a YAML value) can hold
// characters that act on the reader's terminal rather than show: ANSI
// escape sequences (ESC [ ...) that recolour, move the cursor or retitle
// the window, carriage returns that overwrite a line, bidirectional
// overrides (U+202E, U+2066..U+2069, U+200E/F, U+061C) that show text in
// another order than it is, and bytes that are no UTF-8. Escape writes each
// such character as a Go escape (\x1b, \r, \u202e, \xff), so what shows is
// what the input holds. Every table, check line, error and warning that
// quotes input goes through it.

// mustEscape reports whether r (of size bytes) must be escaped: invalid UTF-8
// and every rune that is not graphic (controls, format characters such as
// the bidi overrides, line and paragraph separators, unassigned runes).
func mustEscape(r rune, size int) bool {
	return (r == utf8.RuneError && size == 1) || !unicode.IsGraphic(r)
}

// safePrefix returns how many of b's first bytes are printable ASCII
// (and, keepLayout, line feeds and tabs), which no escaping changes: most
// text is, and needs no rune decoded. Eight bytes are tested at once
// (printableWord); a word that holds any other byte, a line feed or tab
// included, is gone over a byte at a time.
func safePrefix(b []byte, keepLayout bool) int {
	i := 0
	for i < len(b) {
		if i+8 <= len(b) && printableWord(binary.LittleEndian.Uint64(b[i:])) {
			i += 8
			continue
		}
		end := min(i+8, len(b))
		for ; i < end; i++ {
			if c := b[i]; (c < 0x20 || c >= 0x7f) && !(keepLayout && (c == '\n' || c == '\t')) {
				return i
			}
		}
	}
	return i
}

// safePrefixString is safePrefix of a string's bytes, not copied.
func safePrefixString(s string, keepLayout bool) int {
	return safePrefix(unsafe.Slice(unsafe.StringData(s), len(s)), keepLayout)
}

// printableWord reports whether each of the eight bytes of x is
// printable ASCII, 0x20 to 0x7e, exactly. below: 0x20 taken from every
// byte sets the top bit of the lowest byte under 0x20, and of no byte
// when none is (a borrow starts only at such a byte); a top bit x had
// already is dropped (&^ x). above: 0x01 added to every byte sets the top
// bit of a byte 0x7f (a carry starts only at 0xff, refused already), and
// x's own top bits mark the bytes from 0x80.
func printableWord(x uint64) bool {
	return unprintable(x) == 0
}

// unprintable is the top bits printableWord tests: none set when each byte
// of x is printable ASCII.
func unprintable(x uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	below := (x - 0x20*ones) &^ x & highs
	above := ((x + 0x01*ones) | x) & highs
	return below | above
}

// Printable reports whether every byte of b is printable ASCII, 0x20 to
// 0x7e: text no escaping changes, as many runes as bytes. The words are
// tested two a step without a branch each, their results gathered and
// looked at once; the last eight bytes of b, when it has as many, are
// read again as its last word rather than one at a time.
func Printable(b []byte) bool {
	var bad uint64
	i := 0
	for ; i+16 <= len(b); i += 16 {
		w := b[i : i+16 : i+16]
		bad |= unprintable(binary.LittleEndian.Uint64(w)) | unprintable(binary.LittleEndian.Uint64(w[8:]))
	}
	if i+8 <= len(b) {
		bad |= unprintable(binary.LittleEndian.Uint64(b[i:]))
		i += 8
	}
	if i < len(b) {
		if len(b) < 8 {
			for _, c := range b {
				if c-0x20 > 0x7e-0x20 { // below 0x20, the byte wraps past it
					return false
				}
			}
		} else {
			bad |= unprintable(binary.LittleEndian.Uint64(b[len(b)-8:]))
		}
	}
	return bad == 0
}

// NeedsEscape reports whether Escape would change s.
func NeedsEscape(s string) bool {
	for i := safePrefixString(s, false); i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if mustEscape(r, n) {
			return true
		}
		i += n
	}
	return false
}

// Escape returns s with every character that could act on a terminal
// written as a Go escape, line breaks and tabs included: for one cell or
// one name.
func Escape(s string) string { return escape(s, false) }

// EscapeLines is Escape keeping line breaks (LF, and CR LF) and tabs: for
// a whole message or a line of a table.
func EscapeLines(s string) string { return escape(s, true) }

func escape(s string, keepLayout bool) string {
	var b strings.Builder
	start := 0
	for i := safePrefixString(s, keepLayout); i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !mustEscape(r, n) || (keepLayout && (r == '\n' || r == '\t' || (r == '\r' && strings.HasPrefix(s[i+1:], "\n")))) {
			i += n
			continue
		}
		if b.Len() == 0 {
			b.Grow(len(s) + 8)
		}
		b.WriteString(s[start:i])
		switch {
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
		start = i
	}
	if start == 0 {
		return s
	}
	b.WriteString(s[start:])
	return b.String()
}

// Escaping passes each write on to W through EscapeLines: for streams
// that only people read (tables, stderr), whose every write is whole
// text (a formatted line), never half a character.
type Escaping struct {
	W io.Writer
}

func (e *Escaping) Write(p []byte) (int, error) {
	if safePrefix(p, true) == len(p) {
		if _, err := e.W.Write(p); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	s := EscapeLines(string(p))
	if _, err := io.WriteString(e.W, s); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Unwrap returns the writer under w and under every filter (a writer with
// an Unwrap method, as Escaping) stacked on it: for code that writes its
// own terminal controls (a progress line) or asks whether the stream is a
// terminal.
func Unwrap(w io.Writer) io.Writer {
	for {
		u, ok := w.(interface{ Unwrap() io.Writer })
		if !ok {
			return w
		}
		w = u.Unwrap()
	}
}

// Unwrap returns the writer under e.
func (e *Escaping) Unwrap() io.Writer { return e.W }

// PastEscaping is the writer under w when w is an Escaping, w itself
// when not: where text escaped already is written, past a second look at
// each of its bytes.
func PastEscaping(w io.Writer) io.Writer {
	if e, ok := w.(*Escaping); ok {
		return e.W
	}
	return w
}
