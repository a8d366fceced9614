package reports

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/reports/jsonout"
)

// jsonReconciliation writes r as the indented JSON of its reconciliationDoc,
// byte for byte, but writes the groups one at a time as they are read,
// without a document, a map or a string per group held for the whole of
// them: on a million groups the document was most of a run's memory.
func jsonReconciliation(w io.Writer, r *pricing.Reconciliation) error {
	head := jsonout.Indent(nil, mustMarshal(newReconciliationHead(r)))
	// The groups' place in the document: an empty list at the top level,
	// after the fields before it (no string holds a raw line break).
	mark := []byte("\n  \"groups\": [],")
	at := bytes.Index(head, mark)
	if at < 0 {
		return errors.New("write a reconciliation: no place for its groups")
	}
	gw := newGroupJSON(r.By)
	lw := newListWriter(w, head, at+len(mark)-2)
	for m, err := range r.GroupsWithMoney() {
		if err == nil {
			err = lw.add(func(b []byte) []byte { return gw.appendGroup(b, m.Group, m) })
		}
		if err != nil {
			return err
		}
	}
	return lw.close()
}

// listWriter writes a document of indented JSON whose list (its closing
// bracket at head[open], the list empty and two spaces in) gets its
// elements as they are read, in writes of about 60 KiB: byte for byte the
// document indented whole, without a document of them all.
type listWriter struct {
	w    io.Writer
	head []byte
	open int
	buf  []byte
	n    int
}

func newListWriter(w io.Writer, head []byte, open int) *listWriter {
	return &listWriter{w: w, head: head, open: open, buf: append(make([]byte, 0, 64<<10), head[:open]...)}
}

// add appends an element, written by elem, four spaces in.
func (l *listWriter) add(elem func([]byte) []byte) error {
	if l.n > 0 {
		l.buf = append(l.buf, ',')
	}
	l.n++
	l.buf = elem(append(l.buf, "\n    "...))
	if len(l.buf) >= 60<<10 {
		if _, err := l.w.Write(l.buf); err != nil {
			return err
		}
		l.buf = l.buf[:0]
	}
	return nil
}

// close writes the rest of the document.
func (l *listWriter) close() error {
	if l.n == 0 { // nothing was written: the head as it is
		_, err := l.w.Write(l.head)
		return err
	}
	_, err := l.w.Write(append(append(l.buf, "\n  "...), l.head[l.open:]...))
	return err
}

// mustMarshal is json.Marshal of a document made of strings, numbers,
// lists and structs of them, which cannot fail.
func mustMarshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// groupJSON writes groups as groupDoc's indented JSON, two levels deep.
// A field added to groupDoc must be added to appendGroup too (and to
// groupDocFields, which a test checks against groupDoc).
type groupJSON struct {
	keys []groupKeyField // in the order JSON writes a map's keys: by name
	day  dayText
}

// groupKeyField is one entry of a group's "keys": a dimension, or the key
// alias when alias is set.
type groupKeyField struct {
	name  string // as a JSON string
	dim   pricing.Dim
	alias bool
	// plain are the last values found to need no escaping, the next
	// replaced at plain[next%len(plain)]: groups in order repeat a key's
	// value for its models and days, and the names of a few models, in
	// the same strings.
	plain [4]string
	next  uint8
}

// isPlain reports whether v is, in memory, one of the last values found
// to need no escaping.
func (f *groupKeyField) isPlain(v string) bool {
	for i := range f.plain {
		if sameString(v, f.plain[i]) {
			return true
		}
	}
	return false
}

// notePlain keeps v as a value found to need no escaping.
func (f *groupKeyField) notePlain(v string) {
	f.plain[int(f.next)%len(f.plain)] = v
	f.next++
}

func newGroupJSON(by []pricing.Dim) *groupJSON {
	g := &groupJSON{}
	for _, d := range by {
		g.keys = append(g.keys, groupKeyField{name: d.String(), dim: d})
	}
	g.keys = append(g.keys, groupKeyField{name: keyAliasColumn, alias: true})
	slices.SortFunc(g.keys, func(a, b groupKeyField) int { return strings.Compare(a.name, b.name) })
	for i := range g.keys {
		g.keys[i].name = string(appendJSONString(nil, g.keys[i].name))
	}
	return g
}

// appendGroup appends the group's object, its first brace where the
// caller stands and its lines indented by three levels and more.
func (gw *groupJSON) appendGroup(b []byte, g *pricing.Group, m *pricing.GroupMoney) []byte {
	b = append(b, "{\n      \"keys\": {"...)
	n := 0
	for i := range gw.keys {
		f := &gw.keys[i]
		v := g.KeyAlias
		if !f.alias {
			v = gw.day.value(&g.Key, f.dim)
		} else if v == "" {
			continue
		}
		if n > 0 {
			b = append(b, ',')
		}
		n++
		b = append(b, "\n        "...)
		b = append(b, f.name...)
		b = append(b, ": "...)
		if f.isPlain(v) {
			b = append(append(append(b, '"'), v...), '"')
			continue
		}
		start := len(b)
		b = appendJSONString(b, v)
		if len(b)-start == len(v)+2 { // written as it is: nothing escaped
			f.notePlain(v)
		}
	}
	if n > 0 {
		b = append(b, "\n      "...)
	}
	b = append(b, "},\n      \"calls\": "...)
	b = appendInt(b, g.Calls)
	b = append(b, ",\n      \"priced_calls\": "...)
	b = appendInt(b, g.PricedCalls)
	t := &g.Tokens
	b = appendField(b, ",\n      \"tokens\": {\n        \"input\": ", t.Input)
	b = appendField(b, ",\n        \"cache_read\": ", t.CacheRead)
	b = appendField(b, ",\n        \"cache_write\": ", t.CacheWrite)
	if t.CacheWrite1h != 0 {
		b = appendField(b, ",\n        \"cache_write_1h\": ", t.CacheWrite1h)
	}
	b = appendField(b, ",\n        \"output\": ", t.Output)
	b = appendField(b, ",\n        \"reasoning\": ", t.Reasoning)
	b = append(b, "\n      }"...)
	if t.Tools() {
		b = appendField(b, ",\n      \"tool_uses\": {\n        \"web_search\": ", t.WebSearch)
		b = appendField(b, ",\n        \"web_fetch\": ", t.WebFetch)
		b = appendField(b, ",\n        \"file_search\": ", t.FileSearch)
		b = append(b, "\n      }"...)
	}
	if g.CacheHitTokens != 0 {
		b = appendField(b, ",\n      \"cache_hit_tokens\": ", g.CacheHitTokens)
	}
	b = append(appendAmount(append(b, ",\n      \"official\": \""...), m.Official), '"')
	b = append(appendAmount(append(b, ",\n      \"recorded\": \""...), m.Recorded), '"')
	b = append(appendAmount(append(b, ",\n      \"gap\": \""...), m.Gap), '"')
	b = append(appendGroupRatio(append(b, ",\n      \"ratio\": \""...), m), '"')
	return append(b, "\n    }"...)
}

// dayText is GroupKey.Value with the text of the last day kept: groups
// come in order, a day's groups one after the other (or the same few days
// again and again), so the date is written once per day, not per group.
type dayText struct {
	start time.Time
	text  string
}

// value returns k.Value(d).
func (c *dayText) value(k *pricing.GroupKey, d pricing.Dim) string {
	if d != pricing.DimDay {
		return k.Value(d)
	}
	// Equal instants in the same zone write the same date.
	if c.text == "" || !k.Start.Equal(c.start) || k.Start.Location() != c.start.Location() {
		c.start, c.text = k.Start, k.Value(d)
	}
	return c.text
}

// groupDocFields are the JSON names of groupDoc's fields, in order, as
// appendGroup writes them.
var groupDocFields = []string{"keys", "calls", "priced_calls", "tokens", "tool_uses", "cache_hit_tokens", "official", "recorded", "gap", "ratio"}

// sameString reports whether a and b are the same string in memory:
// their bytes at one address, of one length.
func sameString(a, b string) bool {
	return len(a) == len(b) && unsafe.StringData(a) == unsafe.StringData(b)
}

// appendField appends the text before a number, then the number.
func appendField(b []byte, before string, n int64) []byte {
	return appendInt(append(b, before...), n)
}

// appendInt appends strconv.FormatInt(n, 10), writing the digits of a
// count (not negative) itself, two at a time from a table
// (appendDigits), where strconv writes them to a buffer of its own and
// copies them, most of a group's numbers' cost.
func appendInt(b []byte, n int64) []byte {
	if n < 0 {
		return strconv.AppendInt(b, n, 10)
	}
	if n < 10 {
		return append(b, byte('0'+n))
	}
	return appendDigits(b, uint64(n))
}

// appendDigits appends the decimal digits of n, two at a time from a
// table, where strconv.AppendInt writes them to a buffer of its own
// and copies them.
func appendDigits(b []byte, n uint64) []byte {
	var tmp [20]byte
	i := len(tmp)
	for n >= 100 {
		q := n / 100
		r := (n - q*100) * 2
		i -= 2
		tmp[i], tmp[i+1] = digitPairs[r], digitPairs[r+1]
		n = q
	}
	if n >= 10 {
		i -= 2
		tmp[i], tmp[i+1] = digitPairs[2*n], digitPairs[2*n+1]
	} else {
		i--
		tmp[i] = byte('0' + n)
	}
	return append(b, tmp[i:]...)
}

// digitPairs are the two digits of 00 to 99, one after the other.
const digitPairs = "00010203040506070809101112131415161718192021222324252627282930313233343536373839" +
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879" +
	"8081828384858687888990919293949596979899"

// appendJSONString appends s as json.Marshal writes it: quoted, and with
// anything but printable ASCII (and <, >, & and the quote and backslash)
// escaped as json.Marshal escapes it.
func appendJSONString(b []byte, s string) []byte {
	if !plainJSON(s) {
		return append(b, mustMarshal(s)...)
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// plainJSON reports whether json.Marshal writes s as it is, quoted: no
// byte of it is below 0x20, 0x7f or above, a quote, a backslash, <, > or
// &. Eight bytes are tested at a time (a group's key is 64), the rest one
// by one.
func plainJSON(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if escapesIn(binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s[i:]), 8))) {
			return false
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// Repeated bytes, for escapesIn.
const (
	byteOnes  = 0x0101010101010101
	byteHighs = 0x8080808080808080
)

// escapesIn reports whether one of the eight bytes of x is one that
// plainJSON refuses. A byte is zero in x^(c×byteOnes) when it is c; a word has
// a zero byte, or one below n, when (y - n×byteOnes) &^ y has a high bit (a
// borrow only runs on from a byte that was itself below). The pairs '"'
// and '&' (0x22, 0x26) and '<' and '>' (0x3c, 0x3e) differ in one bit,
// set before one comparison each.
func escapesIn(x uint64) bool {
	below := func(y uint64, n uint64) uint64 { return (y - n*byteOnes) &^ y }
	hit := x | below(x, 0x20) | below(x^(0x7f*byteOnes), 1) | below(x^(0x5c*byteOnes), 1) |
		below((x|0x04*byteOnes)^(0x26*byteOnes), 1) | below((x|0x02*byteOnes)^(0x3e*byteOnes), 1)
	return hit&byteHighs != 0
}

// appendDecimal appends d.String(), writing the digits itself when d's
// coefficient has at most 18 digits (it then fits an int64), where String
// makes two big integers and three strings.
func appendDecimal(b []byte, d decimal.Decimal) []byte {
	e := d.Exponent()
	if e > 0 || d.NumDigits() > 18 {
		return append(b, d.String()...)
	}
	return appendCoefficient(b, d.CoefficientInt64(), e)
}

// appendAmount appends a.String() (Decimal.String), as appendDecimal
// does, without making a decimal when a's coefficient has at most 18
// digits.
func appendAmount(b []byte, a ledger.Amount) []byte {
	c, e, ok := a.Int64()
	if !ok || e > 0 || c >= maxCoefficient || c <= -maxCoefficient {
		return append(b, a.String()...)
	}
	return appendCoefficient(b, c, e)
}

// maxCoefficient is the least number of 19 digits: a coefficient below
// it in magnitude has at most 18.
const maxCoefficient = 1_000_000_000_000_000_000

// appendCoefficient appends c × 10^e as Decimal.String writes it: no
// trailing zeros after the point, none before it. c must have at most 18
// digits and e must not be positive.
func appendCoefficient(b []byte, c int64, e int32) []byte {
	if e == 0 {
		return strconv.AppendInt(b, c, 10)
	}
	if c < 0 {
		b = append(b, '-')
		c = -c
	}
	var tmp [24]byte
	digits := appendDigits(tmp[:0], uint64(c))
	point := len(digits) + int(e) // digits before the point
	frac := digits
	if point > 0 {
		b = append(b, digits[:point]...)
		frac = digits[point:]
	} else {
		b = append(b, '0')
	}
	end := len(frac)
	for end > 0 && frac[end-1] == '0' {
		end--
	}
	if end == 0 {
		return b
	}
	b = append(b, '.')
	for range -point {
		b = append(b, '0')
	}
	return append(b, frac[:end]...)
}

// appendFixed appends d.StringFixed(places): rounded half away from zero
// to places decimals, trailing zeros kept. It writes the digits itself
// when d's coefficient has at most 18 digits and its exponent is between
// -18 and 0, where StringFixed makes big integers and strings.
func appendFixed(b []byte, d decimal.Decimal, places int32) []byte {
	e := d.Exponent()
	if e <= 0 && e >= -18 && places >= 0 && places <= 18 && d.NumDigits() <= 18 {
		if out, ok := appendFixedCoefficient(b, d.CoefficientInt64(), e, places); ok {
			return out
		}
	}
	return append(b, d.StringFixed(places)...)
}

// appendAmountFixed appends a's Decimal.StringFixed(places), as
// appendFixed does, without making a decimal when a's coefficient has at
// most 18 digits.
func appendAmountFixed(b []byte, a ledger.Amount, places int32) []byte {
	c, e, ok := a.Int64()
	if ok && e <= 0 && e >= -18 && places >= 0 && places <= 18 && c < maxCoefficient && c > -maxCoefficient {
		if out, ok := appendFixedCoefficient(b, c, e, places); ok {
			return out
		}
	}
	return append(b, a.Decimal().StringFixed(places)...)
}

// appendFixedCoefficient appends c × 10^e rounded half away from zero to
// places decimals, trailing zeros kept, as StringFixed writes it; false
// (b as it was) when scaling c up to places would not fit an int64. c
// must have at most 18 digits, e be in [-18, 0] and places in [0, 18].
func appendFixedCoefficient(b []byte, c int64, e, places int32) ([]byte, bool) {
	switch {
	case e > -places: // fewer decimals than places: scale the coefficient up
		shift := e + places
		if c > math.MaxInt64/pow10[shift] || c < -math.MaxInt64/pow10[shift] {
			return b, false
		}
		c *= pow10[shift]
	case e < -places: // more: drop the extra digits, rounding half away from zero
		unit := pow10[-places-e]
		q, r := c/unit, c%unit
		if r < 0 {
			r = -r
		}
		if r >= unit-r {
			if c < 0 {
				q--
			} else {
				q++
			}
		}
		c = q
	}
	if c < 0 {
		b = append(b, '-')
		c = -c
	}
	var tmp [24]byte
	digits := appendDigits(tmp[:0], uint64(c))
	if places == 0 {
		return append(b, digits...), true
	}
	if len(digits) <= int(places) {
		b = append(b, '0', '.')
		for range int(places) - len(digits) {
			b = append(b, '0')
		}
		return append(b, digits...), true
	}
	point := len(digits) - int(places)
	b = append(b, digits[:point]...)
	return append(append(b, '.'), digits[point:]...), true
}

// pow10 holds the powers of ten that fit an int64.
var pow10 = func() (p [19]int64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// appendRatio appends ratioText(r).
func appendRatio(b []byte, r decimal.NullDecimal) []byte {
	if !r.Valid {
		return b
	}
	return appendFixed(b, r.Decimal, pricing.RatioPlaces)
}

// appendGroupRatio appends the ratio of a group's money as appendRatio
// appends Group.Ratio.
func appendGroupRatio(b []byte, m *pricing.GroupMoney) []byte {
	if !m.RatioValid {
		return b
	}
	return appendAmountFixed(b, m.Ratio, pricing.RatioPlaces)
}
