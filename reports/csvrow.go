package reports

import (
	"strconv"
	"unicode"
	"unicode/utf8"

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
	r.b = strconv.AppendInt(r.b, n, 10)
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

// csvNeedsQuotes reports whether encoding/csv quotes s.
func csvNeedsQuotes(s string) bool {
	if s == "" {
		return false
	}
	if s == `\.` {
		return true
	}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ',', '"', '\r', '\n':
			return true
		}
	}
	first, _ := utf8.DecodeRuneInString(s)
	return unicode.IsSpace(first)
}
