package ledger

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"strconv"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// jsonScanner walks one JSON document in place, front to back, for readers
// that want a few members of it: values they do not want are checked and
// passed over, never decoded. It accepts exactly the documents
// encoding/json accepts, and words the first syntax error as
// encoding/json's SyntaxError does (the same error at the same byte), so
// a reason naming a malformed document reads the same either way.
//
// A reader calls the scanner with s.i at the first byte of a value (white
// space skipped); each method reads one value and leaves s.i after it. The
// first syntax error stops the walk: every method then returns at once.
type jsonScanner struct {
	b     []byte
	i     int
	depth int    // containers open
	err   string // the first syntax error; "" while the text is valid
	// bad is the first member a reader found of the wrong kind, as a
	// reason; the walk goes on, so that a syntax error after it wins.
	bad string
	// key is the last member name read, as written between its quotes;
	// keyPlain is true when it holds no escape and only ASCII.
	key      []byte
	keyPlain bool
	// keyAt is where the last member name read begins (its first quote).
	keyAt int
	// drop are where members to pass over begin, in increasing order
	// (dropped); member never returns them.
	drop []int
	// dup is set by a reader that met a member it reads a second time
	// in one object (readMetadataIn).
	dup bool
	// doubled is 1 when every quote of the document is written twice, as
	// in a CSV field's text between its quotes (read in place, not
	// unescaped first), else 0: a quote takes 1+doubled bytes.
	doubled int
}

// maxDepth is encoding/json's limit on nested arrays and objects.
const maxDepth = 10000

// strStop marks the bytes that end the quick run through a string: the
// closing quote, an escape, control characters (which JSON forbids there)
// and bytes beyond ASCII.
var strStop = func() (t [256]bool) {
	for c := range 256 {
		t[c] = c == '"' || c == '\\' || c < 0x20 || c >= utf8.RuneSelf
	}
	return t
}()

// fail records a syntax error at s.i, in encoding/json's words: the input's
// end reads as a space there, as its scanner's end does.
func (s *jsonScanner) fail(context string) bool {
	c := byte(' ')
	if s.i < len(s.b) {
		c = s.b[s.i]
	}
	if s.err == "" {
		s.err = "invalid character " + quoteChar(c) + " " + context
	}
	return false
}

// eof records that the input ends inside a value.
func (s *jsonScanner) eof() bool {
	if s.err == "" {
		s.err = "unexpected end of JSON input"
	}
	return false
}

// quoteChar formats c for an error message as encoding/json does.
func quoteChar(c byte) string {
	switch c {
	case '\'':
		return `'\''`
	case '"':
		return `'"'`
	}
	q := strconv.Quote(string(rune(c)))
	return "'" + q[1:len(q)-1] + "'"
}

// space passes over white space (JSON's four bytes of it).
func (s *jsonScanner) space() { s.i = skipSpace(s.b, s.i) }

// skipSpace returns the index of the first byte of b from i on that is
// not white space, len(b) if none. Most bytes it looks at are above ' ',
// and one comparison tells them.
func skipSpace(b []byte, i int) int {
	for ; i < len(b); i++ {
		if c := b[i]; c > ' ' || c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return i
		}
	}
	return i
}

// peek returns the byte at s.i, 0 at the end of the input.
func (s *jsonScanner) peek() byte {
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// end checks that only white space follows the top-level value.
func (s *jsonScanner) end() bool {
	s.space()
	if s.err == "" && s.i < len(s.b) {
		return s.fail("after top-level value")
	}
	return s.err == ""
}

// skip reads the value at s.i, whatever it is.
func (s *jsonScanner) skip() bool {
	if s.i >= len(s.b) {
		return s.eof()
	}
	switch c := s.b[s.i]; c {
	case '{':
		return s.skipObject()
	case '[':
		return s.skipArray()
	case '"':
		_, _, ok := s.str()
		return ok
	case 't':
		return s.lit("true")
	case 'f':
		return s.lit("false")
	case 'n':
		return s.lit("null")
	default:
		if c == '-' || isDigit(c) {
			_, ok := s.num()
			return ok
		}
		return s.fail("looking for beginning of value")
	}
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// open enters the array or object whose first byte is at s.i.
func (s *jsonScanner) open() bool {
	if s.depth++; s.depth > maxDepth {
		return s.fail("exceeded max depth")
	}
	s.i++
	return true
}

// skipObject reads the object at s.i.
func (s *jsonScanner) skipObject() bool {
	if !s.open() {
		return false
	}
	for more := s.member(true); more; more = s.member(false) {
		if !s.skip() {
			return false
		}
	}
	return s.err == ""
}

// memberStepwise is member, each step checked on its own: white space
// anywhere, a name with escapes or bytes past ASCII, quotes doubled.
// A member of s.drop is passed over: it goes on to the next.
func (s *jsonScanner) memberStepwise(first bool) bool {
	b := s.b
	i := skipSpace(b, s.i)
	s.i = i
	switch {
	case i >= len(b):
		return s.eof()
	case b[i] == '}':
		s.i++
		s.depth--
		return false
	case !first && b[i] != ',':
		return s.fail("after object key:value pair")
	case !first:
		i = skipSpace(b, i+1)
		s.i = i
	}
	if i >= len(b) {
		return s.eof()
	}
	if b[i] != '"' {
		return s.fail("looking for beginning of object key string")
	}
	s.keyAt = i
	key, flags, ok := s.str()
	if !ok {
		return false
	}
	s.key, s.keyPlain = key, flags == 0
	i = skipSpace(b, s.i)
	s.i = i
	if i >= len(b) {
		return s.eof()
	}
	if b[i] != ':' {
		return s.fail("after object key")
	}
	s.i = skipSpace(b, i+1)
	if len(s.drop) != 0 && s.dropMember() {
		return s.memberStepwise(false)
	}
	return true
}

// dropMember passes over the member whose name memberStepwise read, and
// returns true, when it is the next of s.drop.
func (s *jsonScanner) dropMember() bool {
	for len(s.drop) > 0 && s.drop[0] < s.keyAt {
		s.drop = s.drop[1:]
	}
	if len(s.drop) == 0 || s.drop[0] != s.keyAt {
		return false
	}
	s.drop = s.drop[1:]
	s.skip()
	return true
}

// skipArray reads the array at s.i.
func (s *jsonScanner) skipArray() bool {
	if !s.open() {
		return false
	}
	s.space()
	if s.peek() == ']' {
		s.i++
		s.depth--
		return true
	}
	for {
		if !s.skip() {
			return false
		}
		s.space()
		switch {
		case s.i >= len(s.b):
			return s.eof()
		case s.b[s.i] == ',':
			s.i++
			s.space()
		case s.b[s.i] == ']':
			s.i++
			s.depth--
			return true
		default:
			return s.fail("after array element")
		}
	}
}

// String flags: what a string's text holds beyond plain ASCII.
const (
	strEscape = 1 << iota // a backslash escape
	strHigh               // a byte beyond ASCII
)

// str reads the string at s.i. It returns its text between the quotes,
// as written, and flags telling whether that text holds escapes or bytes
// beyond ASCII (then it must be decoded: unquote).
func (s *jsonScanner) str() (text []byte, flags int, ok bool) {
	b := s.b
	start := s.i + 1 + s.doubled
	for i := start; ; i++ {
		i = plainRun(b, i)
		if i >= len(b) {
			s.i = i
			return nil, 0, s.eof()
		}
		switch c := b[i]; {
		case c == '"':
			s.i = i + 1 + s.doubled
			return b[start:i], flags, true
		case c == '\\':
			flags |= strEscape
			if i, ok = s.escape(i); !ok {
				return nil, 0, false
			}
		case c >= utf8.RuneSelf:
			flags |= strHigh
		default:
			s.i = i
			return nil, 0, s.fail("in string literal")
		}
	}
}

// plainRunWords returns the index of the first byte from b[i] on that
// ends a quick run through a string (strStop), len(b) if none: eight bytes
// at a time, then one at a time. In a word, the lowest byte each test
// marks is a true one (a borrow only runs upwards), so the lowest mark of
// all is the first stop. It is plainRun where that is not vectorised.
func plainRunWords(b []byte, i int) int {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(b); i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		m := bytesOf(w, '"') | bytesOf(w, '\\') | w&hi | (w-lo*0x20)&^w&hi
		if m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for i < len(b) && !strStop[b[i]] {
		i++
	}
	return i
}

// escape checks the escape whose backslash is at b[i] and returns the
// index of its last byte (an escaped quote's second, when doubled).
func (s *jsonScanner) escape(i int) (int, bool) {
	b := s.b
	i++
	if i < len(b) {
		switch b[i] {
		case 'b', 'f', 'n', 'r', 't', '\\', '/':
			return i, true
		case '"':
			return i + s.doubled, true
		case 'u':
			for k := 1; k <= 4; k++ {
				if i+k >= len(b) || !isHex(b[i+k]) {
					s.i = i + k
					return 0, s.fail(`in \u hexadecimal character escape`)
				}
			}
			return i + 4, true
		}
	}
	s.i = i
	return 0, s.fail("in string escape code")
}

func isHex(c byte) bool {
	return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// num reads the number at s.i and returns its text as written.
func (s *jsonScanner) num() ([]byte, bool) {
	b, start := s.b, s.i
	i := s.i
	if b[i] == '-' {
		if i++; i >= len(b) || !isDigit(b[i]) {
			s.i = i
			return nil, s.fail("in numeric literal")
		}
	}
	if b[i] == '0' {
		i++
	} else {
		i = digits(b, i)
	}
	if i < len(b) && b[i] == '.' {
		if i++; i >= len(b) || !isDigit(b[i]) {
			s.i = i
			return nil, s.fail("after decimal point in numeric literal")
		}
		i = digits(b, i)
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		if i++; i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			s.i = i
			return nil, s.fail("in exponent of numeric literal")
		}
		i = digits(b, i)
	}
	s.i = i
	return b[start:i], true
}

// digits returns the index after the run of digits at b[i].
func digits(b []byte, i int) int {
	for i < len(b) && isDigit(b[i]) {
		i++
	}
	return i
}

// validNumber reports whether text is a JSON number, whole.
func validNumber(text []byte) bool {
	if len(text) == 0 || (text[0] != '-' && !isDigit(text[0])) {
		return false
	}
	s := jsonScanner{b: text}
	_, ok := s.num()
	return ok && s.i == len(text)
}

// lit reads the literal word (true, false or null) at s.i.
func (s *jsonScanner) lit(word string) bool {
	for k := 1; k < len(word); k++ {
		if s.i+k >= len(s.b) || s.b[s.i+k] != word[k] {
			s.i += k
			return s.fail("in literal " + word + " (expecting " + quoteChar(word[k]) + ")")
		}
	}
	s.i += len(word)
	return true
}

// text is text for the document s reads: a string's text holds a quote
// only escaped, so a doubled one only where it holds an escape.
func (s *jsonScanner) text(raw []byte, flags int) []byte {
	if flags&strEscape != 0 {
		raw = s.undoubled(raw)
	}
	return text(raw, flags)
}

// undoubled returns the document's text t as it reads with its quotes
// single: t itself unless s.doubled, else a copy with each pair of quotes
// made one.
func (s *jsonScanner) undoubled(t []byte) []byte {
	if s.doubled == 0 {
		return t
	}
	return undouble(t)
}

// undouble returns a copy of t with each pair of quotes made one quote.
func undouble(t []byte) []byte {
	out := make([]byte, 0, len(t))
	for i := 0; i < len(t); i++ {
		out = append(out, t[i])
		if t[i] == '"' && i+1 < len(t) && t[i+1] == '"' {
			i++
		}
	}
	return out
}

// text returns a string's value from its text and flags (from str): the
// text itself when that is what decoding gives, else a decoded copy.
func text(raw []byte, flags int) []byte {
	if flags&strEscape == 0 && (flags == 0 || utf8.Valid(raw)) {
		return raw
	}
	return unquote(raw)
}

// unquote decodes the text of a valid JSON string as encoding/json does:
// escapes resolved, a lone or broken surrogate and each byte that is not
// UTF-8 replaced by U+FFFD.
func unquote(raw []byte) []byte {
	out := make([]byte, 0, len(raw)+utf8.UTFMax)
	for r := 0; r < len(raw); {
		switch c := raw[r]; {
		case c == '\\':
			var n int
			out, n = unescape(out, raw[r:])
			r += n
		case c < utf8.RuneSelf:
			out = append(out, c)
			r++
		default:
			rr, size := utf8.DecodeRune(raw[r:])
			out = utf8.AppendRune(out, rr)
			r += size
		}
	}
	return out
}

// unescape appends the value of the escape at the start of raw and
// returns the bytes it took: a \u escape of a surrogate takes the next one
// with it when the two make a pair.
func unescape(out, raw []byte) ([]byte, int) {
	switch c := raw[1]; c {
	case 'b':
		return append(out, '\b'), 2
	case 'f':
		return append(out, '\f'), 2
	case 'n':
		return append(out, '\n'), 2
	case 'r':
		return append(out, '\r'), 2
	case 't':
		return append(out, '\t'), 2
	case 'u':
		r := hex4(raw[2:6])
		if utf16.IsSurrogate(r) {
			if len(raw) >= 12 && raw[6] == '\\' && raw[7] == 'u' {
				if pair := utf16.DecodeRune(r, hex4(raw[8:12])); pair != unicode.ReplacementChar {
					return utf8.AppendRune(out, pair), 12
				}
			}
			r = unicode.ReplacementChar
		}
		return utf8.AppendRune(out, r), 6
	default: // '"', '\\', '/'
		return append(out, c), 2
	}
}

// hex4 reads four hexadecimal digits (checked before).
func hex4(h []byte) rune {
	var r rune
	for _, c := range h {
		switch {
		case c <= '9':
			c -= '0'
		case c <= 'F':
			c -= 'A' - 10
		default:
			c -= 'a' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// name returns the last member name read, exactly as written once its
// escapes are resolved, as LiteLLM writes and reads names (a Python dict
// look-up) and PostgreSQL's jsonb operators look them up: a name in
// another case is another name. A plain name (no escape, only ASCII) is
// returned as it lies in the document; only an escaped one is decoded.
func (s *jsonScanner) name() []byte {
	if s.keyPlain {
		return s.key
	}
	return s.decodedName()
}

// decodedName is name's way for a name that is not plain, out of line
// so that name is inlined where it is called.
func (s *jsonScanner) decodedName() []byte {
	return unquote(s.undoubled(s.key))
}

// nameIs tells whether the last member's name is want (ASCII), as name
// reads it.
func (s *jsonScanner) nameIs(want string) bool {
	return string(s.name()) == want
}

// frameObject reads the object at s.i as skip does, and appends its
// members to ms: where each name (as written between its quotes) and
// value lie from the start of s.b, as eachMember gives them. Given metas,
// a member named metadata whose value is an object is read as LiteLLM's
// metadata as it is checked (frameMetadata), and appended to metas.
func (s *jsonScanner) frameObject(ms []frameMember, metas *[]framedMeta) ([]frameMember, bool) {
	if !s.open() {
		return ms, false
	}
	for more := s.member(true); more; more = s.member(false) {
		k := cap(s.b) - cap(s.key)
		m := frameMember{key: [2]int32{int32(k), int32(k + len(s.key))}, plain: s.keyPlain, kind: valueOther}
		start := s.i
		switch c := s.peek(); {
		case c == '"':
			_, flags, ok := s.str()
			if !ok {
				return ms, false
			}
			m.kind = valueString | valueKind(flags)
		case c == '{' && metas != nil && s.keyPlain && string(s.key) == "metadata":
			if !s.frameMetadata(metas) {
				return ms, false
			}
		default:
			if !s.skip() {
				return ms, false
			}
		}
		m.val = [2]int32{int32(start), int32(s.i)}
		ms = append(ms, m)
	}
	return ms, s.err == ""
}

// member reads up to the next member's value of the object being read:
// the comma (unless first), the name (into s.key) and the colon, leaving
// s.i at the value. It returns false at the object's end and on an error.
// JSON written compactly is read at once: when the comma and the name's
// opening quote come together, the name holds no escape and only ASCII,
// and its colon follows its closing quote. Anything else is
// memberStepwise's to read, from where it stands. (Until 2026-12-07 every
// member went the stepwise way: docs/scale.md, "The /spend/logs answer:
// three times DuckDB".)
func (s *jsonScanner) member(first bool) bool {
	b, i := s.b, s.i
	if !first {
		if i >= len(b) || b[i] != ',' {
			return s.memberStepwise(first)
		}
		i++
	}
	if i >= len(b) || b[i] != '"' || s.doubled != 0 || len(s.drop) != 0 {
		return s.memberStepwise(first)
	}
	j := plainRun(b, i+1)
	if j+1 >= len(b) || b[j] != '"' || b[j+1] != ':' {
		return s.memberStepwise(first)
	}
	s.keyAt, s.key, s.keyPlain = i, b[i+1:j], true
	s.i = skipSpace(b, j+2)
	return true
}

// framedMeta is LiteLLM's metadata object of one element, read by the
// framer as it checked it: where it lies from the element's start, and
// what readMetadata gives of it, so that no worker reads it again.
type framedMeta struct {
	at     [2]int32
	reason string
	f      metaFields
}

// frameMetadata reads the object at s.i as skip does, and appends what
// readMetadata gives of it to metas; false on a syntax error (then metas
// is as it was). The one walk both checks the element and reads the
// members tokenfare wants; a member read twice, or of the wrong kind,
// has readMetadata read the object again as it does.
func (s *jsonScanner) frameMetadata(metas *[]framedMeta) bool {
	n := len(*metas)
	*metas = append(*metas, framedMeta{})
	fm := &(*metas)[n]
	start := s.i
	s.readTop(&fm.f)
	if s.err != "" {
		*metas = (*metas)[:n]
		return false
	}
	fm.at = [2]int32{int32(start), int32(s.i)}
	if s.dup || s.bad != "" {
		fm.f = metaFields{}
		fm.reason = readMetadataIn(s.b[start:s.i], 0, &fm.f)
		s.dup, s.bad = false, ""
	}
	return true
}

// dropped returns where the members of the valid JSON document m (its
// quotes doubled when doubled is 1) that a later member of the same
// object and name replaces begin (their name's first quote), at every
// depth, in increasing order: the members PostgreSQL's jsonb does not
// keep, names compared with their escapes resolved. A scanner given them
// (jsonScanner.drop) passes those members over.
func dropped(m []byte, doubled int) []int {
	s := jsonScanner{b: m, doubled: doubled}
	s.space()
	var out []int
	s.droppedIn(&out)
	slices.Sort(out)
	return out
}

// droppedIn reads the value at s.i and appends to out where its objects'
// replaced members begin.
func (s *jsonScanner) droppedIn(out *[]int) {
	switch s.peek() {
	case '{':
	case '[':
		s.open()
		s.space()
		for s.peek() != ']' {
			s.droppedIn(out)
			s.space()
			if s.peek() == ',' {
				s.i++
				s.space()
			}
		}
		s.i++
		s.depth--
		return
	default:
		s.skip()
		return
	}
	s.open()
	type member struct {
		name string
		at   int
	}
	var ms []member
	for more := s.member(true); more; more = s.member(false) {
		ms = append(ms, member{string(s.name()), s.keyAt})
		s.droppedIn(out)
	}
	if keep := lastOfEach(ms, func(m member) string { return m.name }); keep != nil {
		for i, m := range ms {
			if !keep[i] {
				*out = append(*out, m.at)
			}
		}
	}
}

// lastOfEach returns, for items named by name, which are the last of
// their name; nil when every name is given once.
func lastOfEach[T any](items []T, name func(T) string) []bool {
	last := make(map[string]int, len(items))
	for i, it := range items {
		last[name(it)] = i
	}
	if len(last) == len(items) {
		return nil
	}
	keep := make([]bool, len(items))
	for _, i := range last {
		keep[i] = true
	}
	return keep
}
