package reports

import (
	"encoding/binary"
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/tokenfare/tokenfare/ledger"
)

// csvRow appends the fields of one CSV record to b as encoding/csv's
// Writer writes them with its defaults (comma-separated, a field quoted
// when it holds a comma, a quote, a line break or leads with a space, or
// is `\.`; quotes doubled inside; "\n" ends a record): a test holds it to
// the Writer's bytes. Numbers are appended as digits: they never need
// quotes.
type csvRow struct {
	b      []byte
	fields int
}

// next starts a field.
func (r *csvRow) next() {
	if r.fields > 0 {
		r.b = append(r.b, ',')
	}
	r.fields++
}

// text appends a field of text.
func (r *csvRow) text(s string) {
	r.next()
	r.b = appendCSVField(r.b, s)
}

// number appends an integer field.
func (r *csvRow) number(n int64) {
	r.next()
	r.b = appendInt(r.b, n)
}

// amount appends a as a.String() writes it.
func (r *csvRow) amount(a ledger.Amount) {
	r.next()
	r.b = appendAmount(r.b, a)
}

// appendCSVRecord appends a whole record of text fields and its line end.
func appendCSVRecord(b []byte, fields []string) []byte {
	r := csvRow{b: b}
	for _, f := range fields {
		r.text(f)
	}
	return append(r.b, '\n')
}

// appendCSVField appends s as one field, quoted when it must be.
func appendCSVField(b []byte, s string) []byte {
	if !csvNeedsQuotes(s) {
		return append(b, s...)
	}
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' {
			b = append(b, '"')
		}
		b = append(b, s[i])
	}
	return append(b, '"')
}

// csvPlain reports whether s is a CSV cell written as it is: sheetText
// leaves it alone and encoding/csv does not quote it.
func csvPlain(s string) bool {
	return s == "" || strings.IndexByte(formulaStarts, s[0]) < 0 && !csvNeedsQuotes(s)
}

// csvNeedsQuotes reports whether encoding/csv quotes s.
func csvNeedsQuotes(s string) bool {
	if s == "" {
		return false
	}
	if s == `\.` {
		return true
	}
	if csvSpecialIn(s) {
		return true
	}
	first, _ := utf8.DecodeRuneInString(s)
	return unicode.IsSpace(first)
}

// csvSpecialIn reports whether s holds a comma, a quote or a line break
// (\r or \n): eight bytes at a time, the last eight of a longer string
// among them, as plainJSON tests its words; one at a time when shorter.
// The four are below '-', and most texts (keys, names, days) have no byte
// below it: a word is first tested for such a byte alone (belowDash),
// and only a string with one is tested for the four.
func csvSpecialIn(s string) bool {
	if len(s) < 8 {
		for i := 0; i < len(s); i++ {
			switch s[i] {
			case ',', '"', '\r', '\n':
				return true
			}
		}
		return false
	}
	b := unsafe.Slice(unsafe.StringData(s), len(s)) // read, never written
	var low uint64
	for i := 0; i+8 <= len(b); i += 8 {
		low |= belowDash(binary.LittleEndian.Uint64(b[i:]))
	}
	last := binary.LittleEndian.Uint64(b[len(b)-8:])
	if low|belowDash(last) == 0 {
		return false
	}
	var hits uint64
	for i := 0; i+8 <= len(b); i += 8 {
		hits |= csvSpecialBits(binary.LittleEndian.Uint64(b[i:]))
	}
	return (hits|csvSpecialBits(last))&byteHighs != 0
}

// belowDash returns a word with high bits set, not zero, when one of x's
// bytes is below '-' (0x2d), and zero when none is. A byte below it,
// the first from the low end, borrows into its high bit, which its own
// high bit, clear, lets through; a byte at or above it does not borrow,
// and keeps its high bit clear unless it is 0x80 or more, which &^ x
// clears.
func belowDash(x uint64) uint64 {
	return (x - '-'*byteOnes) &^ x & byteHighs
}

// csvSpecialBits returns a word with a byte's high bit set when one of
// x's eight bytes is a comma, a quote, \r or \n, and none otherwise. A
// byte is zero in t = x^(c×byteOnes) when it is c, and a word has a zero
// byte when (t - byteOnes) &^ t has a high bit (a borrow only runs on
// from a byte that was itself zero).
func csvSpecialBits(x uint64) uint64 {
	zero := func(t uint64) uint64 { return (t - byteOnes) &^ t }
	return zero(x^(','*byteOnes)) | zero(x^('"'*byteOnes)) | zero(x^('\r'*byteOnes)) | zero(x^('\n'*byteOnes))
}
