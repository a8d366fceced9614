package reports

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"math"
	"math/bits"
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
		if err != nil {
			return err
		}
		lw.buf = gw.appendGroup(lw.next(), m.Group, m)
		if err := lw.flush(); err != nil {
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
	return &listWriter{w: w, head: head, open: open, buf: append(make([]byte, 0, outBlock), head[:open]...)}
}

// add appends an element, written by elem, four spaces in.
func (l *listWriter) add(elem func([]byte) []byte) error {
	l.buf = elem(l.next())
	return l.flush()
}

// next returns the buffer with the start of an element appended: the
// element is to be appended to it and the result put back in buf. (add
// does so through a function, which costs a call an element.)
func (l *listWriter) next() []byte {
	if l.n > 0 {
		l.buf = append(l.buf, ',')
	}
	l.n++
	return append(l.buf, "\n    "...)
}

// flush writes the buffer once it holds outFlush bytes.
func (l *listWriter) flush() error {
	if len(l.buf) < outFlush {
		return nil
	}
	_, err := l.w.Write(l.buf)
	l.buf = l.buf[:0]
	return err
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

// The buffers of a list of groups (JSON, CSV): written once they hold
// outFlush bytes, in outBlock of room. Until 2026-12-08 they were 60 KiB
// in 64: a million groups' 523 MB of JSON went out in about 8,500
// writes, about 2,100 now. Written in 256 KiB, the kernel's time to
// take them fell by about a sixth (dd of 523 MB to a file: 0.17 s of
// system time in 64 KiB blocks, 0.14 to 0.15 in 256 KiB); in 1 MiB, no
// less.
const (
	outBlock = 256 << 10
	outFlush = outBlock - 8<<10
)

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
}

// groupKeyField is one entry of a group's "keys": a dimension, or the key
// alias when alias is set. The text around its value is made once: a
// group's keys are then, field by field, a constant and the value.
type groupKeyField struct {
	dim   pricing.Dim
	alias bool
	// first is the text before the value when the field is the first
	// written (the object's opening with it), next when it follows
	// another (the last one's closing quote and a comma with it): both end
	// with the value's opening quote.
	first, next string
	// timeText is set for a day or an hour, whose text (digits, '-', 'T',
	// ':', '+', 'Z') never needs escaping; time keeps its last text.
	timeText bool
	time     timeText
	// last is the last value written, escaped its text as JSON writes it
	// between the quotes (nil when it is written as it is). Groups in
	// order repeat values (a key's for its models, a model's for its
	// keys): a value equal to the last is not tested for escapes again.
	last    string
	escaped []byte
}

// Text around a group's keys: their opening and closing when none is
// written, the closing after a value.
const (
	noGroupKeys    = "{\n      \"keys\": {},\n      \"calls\": "
	groupKeysClose = "\"\n      },\n      \"calls\": "
)

func newGroupJSON(by []pricing.Dim) *groupJSON {
	g := &groupJSON{}
	for _, d := range by {
		g.keys = append(g.keys, groupKeyField{dim: d, timeText: d == pricing.DimDay || d == pricing.DimHour})
	}
	g.keys = append(g.keys, groupKeyField{alias: true})
	name := func(f *groupKeyField) string {
		if f.alias {
			return keyAliasColumn
		}
		return f.dim.String()
	}
	slices.SortFunc(g.keys, func(a, b groupKeyField) int { return strings.Compare(name(&a), name(&b)) })
	for i := range g.keys {
		f := &g.keys[i]
		quoted := string(appendJSONString(nil, name(f)))
		f.first = "{\n      \"keys\": {\n        " + quoted + ": \""
		f.next = "\",\n        " + quoted + ": \""
	}
	return g
}

// appendGroup appends the group's object, its first brace where the
// caller stands and its lines indented by three levels and more.
func (gw *groupJSON) appendGroup(b []byte, g *pricing.Group, m *pricing.GroupMoney) []byte {
	b = gw.appendKeys(b, g)
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
	b = appendAmount(append(b, ",\n      \"official\": \""...), m.Official)
	b = appendAmount(append(b, "\",\n      \"recorded\": \""...), m.Recorded)
	b = appendAmount(append(b, "\",\n      \"gap\": \""...), m.Gap)
	b = appendGroupRatio(append(b, "\",\n      \"ratio\": \""...), m)
	return append(b, "\"\n    }"...)
}

// appendKeys appends the group's opening brace, its "keys" object and
// the name of the field after it.
func (gw *groupJSON) appendKeys(b []byte, g *pricing.Group) []byte {
	written := false
	for i := range gw.keys {
		f := &gw.keys[i]
		var v string
		switch {
		case f.alias:
			if v = g.KeyAlias; v == "" {
				continue
			}
		case f.timeText:
			v = f.time.value(&g.Key, f.dim)
		default:
			v = g.Key.Value(f.dim)
		}
		if written {
			b = append(b, f.next...)
		} else {
			b = append(b, f.first...)
		}
		written = true
		b = f.appendValue(b, v)
	}
	if !written {
		return append(b, noGroupKeys...)
	}
	return append(b, groupKeysClose...)
}

// appendValue appends v as JSON writes it between quotes.
func (f *groupKeyField) appendValue(b []byte, v string) []byte {
	if f.timeText {
		return append(b, v...)
	}
	if v != f.last { // the same bytes at another place are the same text
		f.last, f.escaped = v, nil
		if !plainJSON(v) {
			q := mustMarshal(v)
			f.escaped = q[1 : len(q)-1]
		}
	}
	if f.escaped != nil {
		return append(b, f.escaped...)
	}
	return append(b, v...)
}

// dayText is GroupKey.Value with the text of the last day kept: groups
// come in order, a day's groups one after the other (or the same few days
// again and again), so the date is written once per day, not per group.
type dayText struct {
	day timeText
}

// value returns k.Value(d).
func (c *dayText) value(k *pricing.GroupKey, d pricing.Dim) string {
	if d != pricing.DimDay {
		return k.Value(d)
	}
	return c.day.value(k, d)
}

// timeText is GroupKey.Value of one dimension of time, a day or an hour,
// with the last text kept.
type timeText struct {
	start time.Time
	text  string
}

// value returns k.Value(d); d must be the same at every call.
func (c *timeText) value(k *pricing.GroupKey, d pricing.Dim) string {
	// Equal instants in the same zone write the same date and hour.
	if c.text == "" || !k.Start.Equal(c.start) || k.Start.Location() != c.start.Location() {
		c.start, c.text = k.Start, k.Value(d)
	}
	return c.text
}

// groupDocFields are the JSON names of groupDoc's fields, in order, as
// appendGroup writes them.
var groupDocFields = []string{"keys", "calls", "priced_calls", "tokens", "tool_uses", "cache_hit_tokens", "official", "recorded", "gap", "ratio"}

// appendField appends the text before a number, then the number.
func appendField(b []byte, before string, n int64) []byte {
	return appendInt(append(b, before...), n)
}

// appendInt appends strconv.FormatInt(n, 10), writing the digits of a
// count (not negative) itself (appendDigits), where strconv writes them
// to a buffer of its own and copies them, most of a group's numbers' cost.
func appendInt(b []byte, n int64) []byte {
	if n < 0 {
		return strconv.AppendInt(b, n, 10)
	}
	if n < 10 { // most of a group's counts of tokens it did not use
		return append(b, byte('0'+n))
	}
	if n < 100 {
		p := digitPairs[n]
		return append(b, byte(p), byte(p>>8))
	}
	return appendDigits(b, uint64(n))
}

// appendDigits appends the decimal digits of n. Their count is found
// first, so they are written in place, from the last, not to a buffer
// and copied.
func appendDigits(b []byte, n uint64) []byte {
	at, width := len(b), digitCount(n)
	b = slices.Grow(b, width)[:at+width]
	putDigits(b[at:], n)
	return b
}

// appendPadded appends n's last width digits, with zeros before n's
// digits when it has fewer.
func appendPadded(b []byte, n uint64, width int) []byte {
	for ; width > len(pow10u); width-- { // more than a uint64 has
		b = append(b, '0')
	}
	at := len(b)
	b = slices.Grow(b, width)[:at+width]
	putDigits(b[at:], n)
	return b
}

// putDigits writes n's digits to d, the last at its end, four at a time
// then two, from a table of pairs; zeros before them when n has fewer
// digits than d has bytes. n must have no more.
func putDigits(d []byte, n uint64) {
	i := len(d)
	for ; i >= 4; i -= 4 {
		q := n / 10000
		r := n - q*10000
		hi := r / 100
		binary.LittleEndian.PutUint32(d[i-4:], uint32(digitPairs[hi])|uint32(digitPairs[r-hi*100])<<16)
		n = q
	}
	if i >= 2 {
		q := n / 100
		binary.LittleEndian.PutUint16(d[i-2:], digitPairs[n-q*100])
		n = q
		i -= 2
	}
	if i == 1 {
		d[0] = byte('0' + n)
	}
}

// digitCount returns the count of n's decimal digits, 1 for 0. From
// n's length in bits, ×1233/4096 (just above log10 2) gives the count or
// one less, which a comparison with a power of ten settles.
func digitCount(n uint64) int {
	n |= 1
	d := bits.Len64(n) * 1233 >> 12
	if n >= pow10u[d] {
		d++
	}
	return d
}

// pow10u holds the powers of ten that fit a uint64.
var pow10u = func() (p [20]uint64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// digitPairs[n] are the two digits of n (0 to 99), the first in the low
// byte: one store writes them.
var digitPairs = func() (p [100]uint16) {
	for n := range p {
		p[n] = uint16('0'+n/10) | uint16('0'+n%10)<<8
	}
	return p
}()

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
// &. Eight bytes are tested at a time (a group's key is 64), the last
// eight of a longer string among them; what a string's words hold is
// gathered and tested once, the strings being nearly always plain.
func plainJSON(s string) bool {
	if len(s) < 8 {
		return plainBytes(s)
	}
	b := unsafe.Slice(unsafe.StringData(s), len(s)) // read, never written
	plain := uint64(byteHighs)
	for i := 0; i+8 <= len(b); i += 8 {
		plain &= plainBits(binary.LittleEndian.Uint64(b[i:]))
	}
	if len(b)%8 != 0 {
		plain &= plainBits(binary.LittleEndian.Uint64(b[len(b)-8:]))
	}
	return plain == byteHighs
}

// plainBytes is plainJSON one byte at a time.
func plainBytes(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// Repeated bytes, for plainBits.
const (
	byteOnes  = 0x0101010101010101
	byteHighs = 0x8080808080808080
)

// plainBits returns a word whose bytes have their high bit set where x's
// byte is one plainJSON lets through, and clear where it is not. Below
// 0x80 (the bytes of y) a byte plus n carries into its high bit when it
// is at least 0x80-n, and never into the next byte: y + 0x60 has the
// bit when the byte is 0x20 or more, y + 1 when it is 0x7f, and
// (y^c) + 0x7f when it is not c. The pairs '"' and '&' (0x22, 0x26) and
// '<' and '>' (0x3c, 0x3e) differ in one bit, set before one comparison
// each.
func plainBits(x uint64) uint64 {
	y := x &^ byteHighs
	bs := y ^ (0x5c * byteOnes)
	qa := (y | 0x04*byteOnes) ^ (0x26 * byteOnes)
	lg := (y | 0x02*byteOnes) ^ (0x3e * byteOnes)
	return ^(x | (y + byteOnes)) & (y + 0x60*byteOnes) &
		(bs + 0x7f*byteOnes) & (qa + 0x7f*byteOnes) & (lg + 0x7f*byteOnes)
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
	if c < 0 {
		b = append(b, '-')
		c = -c
	}
	if e == 0 {
		return appendDigits(b, uint64(c))
	}
	// The zeros String leaves out are cut once written: a byte compared
	// a zero, where dividing by ten first costs a division a zero and a
	// test of every coefficient.
	return trimDecimals(appendPoint(b, uint64(c), int(-e)))
}

// trimDecimals cuts the zeros at the end of b, which holds a point, and
// the point when nothing is left after it.
func trimDecimals(b []byte) []byte {
	end := len(b)
	for b[end-1] == '0' {
		end--
	}
	if b[end-1] == '.' {
		end--
	}
	return b[:end]
}

// appendPoint appends u with its last places digits after a point,
// "0" before it when u has no more: the whole number's digits, the point
// and the decimals written in place at once.
func appendPoint(b []byte, u uint64, places int) []byte {
	if places >= len(pow10u) { // more decimals than a uint64 has digits
		return appendPadded(append(b, "0."...), u, places)
	}
	whole, frac := u/pow10u[places], u%pow10u[places]
	at, width := len(b), 1
	if whole >= 10 {
		width = digitCount(whole)
	}
	point := at + width
	b = slices.Grow(b, width+1+places)[:point+1+places]
	if width == 1 { // most amounts: a unit or less, a ratio
		b[at] = byte('0' + whole)
	} else {
		putDigits(b[at:point], whole)
	}
	b[point] = '.'
	putDigits(b[point+1:], frac)
	return b
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
	if places == 0 {
		return appendDigits(b, uint64(c)), true
	}
	return appendPoint(b, uint64(c), int(places)), true
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
