package ledger

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/bits"
	"unsafe"
)

// The CSV dialect is RFC 4180 with one rule that makes it possible to find
// record boundaries quickly and to recover from broken rows: a double quote
// opens a quoted field only at the start of a field (first byte of a
// record or right after a comma). Inside a quoted field "" is a quote and a
// lone " closes the field. Any other quote is literal for the purpose of
// finding boundaries, but makes its row malformed. Records end at "\n"
// or "\r\n" outside quoted fields. scanRecords (used to cut the input into
// chunks) and splitter.record (used to split a chunk into fields) apply the
// same rule, so chunks always end on record boundaries.

// scanRecords reports where the last complete record in data ends (the
// index just past its newline; 0 when no record is complete), whether
// data ends inside a quoted field, and whether data holds a quote at all.
// data must start at a record start.
func scanRecords(data []byte) (end int, open, quoted bool) {
	seg, i := 0, 0
	for {
		q := bytes.IndexByte(data[i:], '"')
		if q < 0 {
			break
		}
		quoted = true
		q += i
		if q > 0 && data[q-1] != ',' && data[q-1] != '\n' {
			i = q + 1 // a literal quote inside an unquoted field
			continue
		}
		end = lastNewline(data, seg, q, end)
		c := closingQuote(data, q+1)
		if c < 0 {
			return end, true, true
		}
		i, seg = c+1, c+1
	}
	if nl := bytes.LastIndexByte(data[seg:], '\n'); nl >= 0 {
		end = seg + nl + 1
	}
	return end, false, quoted
}

// csvMarks are the marks of a buffer's commas, quotes and newlines, a bit
// a byte (commaQuoteLineMasks), a word more, partial or empty, for the end.
type csvMarks struct {
	commas, quotes, lines []uint64
	// plain: every quote of the buffer opens a field at its start,
	// closes it right before a comma, a newline or a quote, or is one
	// of a pair between, and no quoted field holds a newline; commas
	// then marks only the commas outside quoted fields (scanParity).
	plain bool
	// nul: the buffer may hold a NUL byte (none when false).
	nul bool
}

// mark makes m the marks of data.
func (m *csvMarks) mark(data []byte) {
	n := len(data)/64 + 1
	if cap(m.quotes) < n {
		m.commas, m.quotes, m.lines = make([]uint64, n), make([]uint64, n), make([]uint64, n)
	}
	m.commas, m.quotes, m.lines = m.commas[:n], m.quotes[:n], m.lines[:n]
	full := len(data) / 64
	nul := commaQuoteLineMasks(m.commas[:full], m.quotes[:full], m.lines[:full], data)
	var tail [64]byte // the last bytes, the rest spaces, which mark nothing
	for i := range tail {
		tail[i] = ' '
	}
	copy(tail[:], data[64*full:])
	m.nul = commaQuoteLineMasks(m.commas[full:], m.quotes[full:], m.lines[full:], tail[:]) || nul
}

// scan is scanRecords of data, marked by m: from the parity of its quotes
// where that tells (scanParity), else quote by quote (scanQuoteMarks).
func (m *csvMarks) scan(data []byte) (end int, open, quoted bool) {
	if end, open, quoted, ok := m.scanParity(); ok {
		return end, open, quoted
	}
	return scanQuoteMarks(data, m.quotes)
}

// cut makes m the marks of the buffer's first end bytes, which it marked.
func (m *csvMarks) cut(end int) {
	n := end/64 + 1
	m.commas, m.quotes, m.lines = m.commas[:n], m.quotes[:n], m.lines[:n]
	keep := uint64(1)<<(end&63) - 1
	m.commas[n-1] &= keep
	m.quotes[n-1] &= keep
	m.lines[n-1] &= keep
}

// countBits returns how many bytes masks mark.
func countBits(masks []uint64) int {
	n := 0
	for _, m := range masks {
		n += bits.OnesCount64(m)
	}
	return n
}

// scanParity is scanRecords from the marks m (of data, words past its end
// zero), by the parity of the quotes up to each byte: a quoted field's
// opening quote makes it odd, each pair of quotes in it leaves it so, its
// closing quote makes it even, so a byte is inside a quoted field when
// the parity is odd. That is so while every quote the parity takes for an
// opening one is at a field's start (right after a comma or a newline,
// or first), or right after a closing one (the two are a pair: still
// inside); ok is false when a quote is neither (a literal quote, which
// scanRecords passes over). Some forty instructions a 64 bytes, not a
// few a quote. It keeps in m.commas only the commas outside quoted
// fields (up to the literal quote when not ok), and sets m.plain.
func (m *csvMarks) scanParity() (end int, open, quoted, ok bool) {
	commas := m.commas
	n := len(commas)
	quotes, lines := m.quotes[:n], m.lines[:n]
	var inside, any uint64 // inside: all ones when the word before ends inside
	after := uint64(1)     // bit 0: the byte before the word ends a field (or there is none)
	last := -1
	plain := true
	stops := commas[0] | lines[0] | quotes[0] // the bytes that end a field, or a quote
	for w := range n {
		q, nl := quotes[w], lines[w]
		var next uint64 // the next word's stops
		if w+1 < n {
			next = commas[w+1] | lines[w+1] | quotes[w+1]
		}
		if q|nl == 0 { // most of a row's plain columns: no quote, no newline
			commas[w] &^= inside
			after, stops = stops>>63, next
			continue
		}
		in := prefixXor(q) ^ inside // the parity up to each byte, itself counted
		opens := q & in
		if opens&^(stops<<1|after)|q&^in&^(stops>>1|next<<63)|nl&in != 0 {
			if opens&^(stops<<1|after) != 0 {
				m.plain = false
				return 0, false, false, false
			}
			plain = false // text after a closing quote, or a newline in a quoted field
		}
		if out := nl &^ in; out != 0 {
			last = w<<6 + 63 - bits.LeadingZeros64(out)
		}
		commas[w] &^= in
		inside = uint64(int64(in) >> 63)
		after = stops >> 63
		any |= q
		stops = next
	}
	m.plain = plain
	return last + 1, inside != 0, any != 0, true
}

// prefixXor returns the word whose bit i is the parity of bits 0 to i of x.
func prefixXor(x uint64) uint64 {
	x ^= x << 1
	x ^= x << 2
	x ^= x << 4
	x ^= x << 8
	x ^= x << 16
	return x ^ x<<32
}

// scanQuoteMarks is scanRecords of data from qm, the marks of its quotes
// (as long as data/64+1, zero past its end). A quoted field costs a few
// instructions a quote, not a search through its text.
func scanQuoteMarks(data []byte, qm []uint64) (end int, open, quoted bool) {
	seg, to := 0, len(data)
	for q := nextMark(qm, 0, to); q < to; q = nextMark(qm, q+1, to) {
		quoted = true
		if q > 0 && data[q-1] != ',' && data[q-1] != '\n' {
			continue // a literal quote inside an unquoted field
		}
		end = lastNewline(data, seg, q, end)
		// The closing quote: the first not followed by another (a doubled
		// quote is a quote of the text).
		c := nextMark(qm, q+1, to)
		for c+1 < to && data[c+1] == '"' {
			c = nextMark(qm, c+2, to)
		}
		if c >= to {
			return end, true, true
		}
		q, seg = c, c+1
	}
	if nl := bytes.LastIndexByte(data[seg:], '\n'); nl >= 0 {
		end = seg + nl + 1
	}
	return end, false, quoted
}

// lastNewline returns the index after the last newline of data[from:to],
// end when there is none. The newlines are searched forwards: between
// two quoted fields there is mostly none or one, and the vectorised
// search forwards is quicker than the search backwards, a byte at a time.
func lastNewline(data []byte, from, to, end int) int {
	for {
		i := bytes.IndexByte(data[from:to], '\n')
		if i < 0 {
			return end
		}
		end = from + i + 1
		from = end
	}
}

// splitter splits records into fields. Field slices point into the input,
// which is modified in place to unescape doubled quotes.
type splitter struct {
	fields [][]byte
	// With dst set, the fast path stores field k in dst[pos[k]] instead
	// of appending to fields, and only counts fields in n.
	dst *rowFields
	pos []int
	n   int
	// noQuote: the input is known to hold no quote, so records need not
	// be searched for one.
	noQuote bool
	// masks, when set with dst, mark the commas of the input (markCommas):
	// the fast path then reads a line's commas from them.
	masks []uint64
	// quotes mark the input's quotes alike, when it holds any (not
	// noQuote): a record with quotes is then split from the marks of both
	// (quotedMasked).
	quotes []uint64
	// unquoted is room for the text of a quoted field being unescaped.
	unquoted []byte
	// keep, when not 0, is 1 + the field quotedMasked leaves with its
	// quotes doubled, setting dst.doubled, rather than unescape it.
	keep int
	// plain: masks, quotes and lines are the marks of a plain chunk
	// (csvMarks.plain), masks only of the commas outside quoted fields:
	// a record with quotes is then split as one without (splitPlain).
	// It needs dst.
	plain bool
	lines []uint64
}

// trashCol is the rowFields slot that receives ignored columns.
const trashCol = maxCols - 1

// record splits the record starting at data[pos] into s.fields (or dst).
// It returns the index after the record's terminator, the number of
// newlines the record spans (its terminator included), whether the line
// was blank, and why the record is malformed ("" when it is well formed).
func (s *splitter) record(data []byte, pos int) (next, lines int, blank bool, bad string) {
	s.fields = s.fields[:0]
	s.n = -1
	if s.dst != nil {
		s.dst.doubled = false
	}
	if s.plain {
		return s.plainRecord(data, pos)
	}
	line := data[pos:]
	next = len(data)
	if eol := bytes.IndexByte(line, '\n'); eol >= 0 {
		line, next, lines = line[:eol], pos+eol+1, 1
	}
	if !s.noQuote && bytes.IndexByte(line, '"') >= 0 {
		if len(s.quotes) > 0 && s.dst != nil {
			if n, ok := s.quotedMasked(data, pos, pos+len(line)); ok {
				s.n = n
				return next, lines, false, ""
			}
		}
		return s.slowRecord(data, pos)
	}
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	if len(line) == 0 {
		return next, lines, true, ""
	}
	switch {
	case s.dst != nil && s.masks != nil:
		s.n = s.splitMasked(pos, pos+len(line))
	case s.dst != nil:
		s.n = s.splitInto(line, pos)
	default:
		s.splitLine(line)
	}
	return next, lines, false, ""
}

// splitLine splits a line without quotes at its commas, eight bytes at a
// time: a word XORed with eight commas has a zero byte where a comma was.
func (s *splitter) splitLine(line []byte) {
	const lo, low7 = 0x0101010101010101, 0x7F7F7F7F7F7F7F7F
	start, i := 0, 0
	for ; i+8 <= len(line); i += 8 {
		y := binary.LittleEndian.Uint64(line[i:]) ^ (lo * ',')
		zero := ^(((y & low7) + low7) | y | low7) // high bit set in each zero byte
		for zero != 0 {
			j := i + bits.TrailingZeros64(zero)>>3
			s.fields = append(s.fields, line[start:j])
			start = j + 1
			zero &= zero - 1
		}
	}
	for ; i < len(line); i++ {
		if line[i] == ',' {
			s.fields = append(s.fields, line[start:i])
			start = i + 1
		}
	}
	s.fields = append(s.fields, line[start:])
}

// splitInto is splitLine storing each field's span straight into its
// column of s.dst; base is the offset of line in s.dst.data. It returns
// the number of fields; fields beyond len(s.pos) are only counted.
func (s *splitter) splitInto(line []byte, base int) int {
	at, pos := &s.dst.at, s.pos
	k, start := 0, base // fields seen, offset of the current field
	put := func(end int) {
		if k < len(pos) {
			at[pos[k]&(maxCols-1)] = [2]int32{int32(start), int32(end)}
		}
		k++
		start = end + 1
	}
	rest, off := line, base
	for len(rest) >= 16 { // two words a turn: most have no comma
		z0, z1 := commas(binary.LittleEndian.Uint64(rest)), commas(binary.LittleEndian.Uint64(rest[8:]))
		for ; z0 != 0; z0 &= z0 - 1 {
			put(off + bits.TrailingZeros64(z0)>>3)
		}
		for ; z1 != 0; z1 &= z1 - 1 {
			put(off + 8 + bits.TrailingZeros64(z1)>>3)
		}
		rest, off = rest[16:], off+16
	}
	for i, c := range rest {
		if c == ',' {
			put(off + i)
		}
	}
	put(base + len(line))
	return k
}

// markCommas sets s.masks to mark the commas of data, a bit a byte
// (commaMasks), for splitMasked. Unescaping a quoted record in place moves
// bytes inside that record only, so the marks of the records after it
// stay true.
func (s *splitter) markCommas(data []byte) {
	n := len(data)/64 + 1 // a word more, partial or empty, for the end
	if cap(s.masks) < n {
		s.masks = make([]uint64, n)
	}
	s.masks = s.masks[:n]
	full := len(data) / 64
	var tail [64]byte
	copy(tail[:], data[64*full:])
	if s.noQuote {
		s.quotes = s.quotes[:0]
		commaMasks(s.masks[:full], data)
		commaMasks(s.masks[full:], tail[:])
		return
	}
	if cap(s.quotes) < n {
		s.quotes = make([]uint64, n)
	}
	s.quotes = s.quotes[:n]
	commaQuoteMasks(s.masks[:full], s.quotes[:full], data)
	commaQuoteMasks(s.masks[full:], s.quotes[full:], tail[:])
}

// nextMark returns the index of the first byte marked in masks from from
// on, to when there is none before to.
func nextMark(masks []uint64, from, to int) int {
	if from >= to {
		return to
	}
	w := from >> 6
	m := masks[w] &^ (1<<(from&63) - 1)
	for m == 0 {
		if w++; w<<6 >= to {
			return to
		}
		m = masks[w]
	}
	return min(w<<6+bits.TrailingZeros64(m), to)
}

// maxEscaped is how many fields of a record quotedMasked unescapes.
const maxEscaped = 8

// quotedMasked splits the record data[pos:end] (end is its newline or the
// input's end), which holds a quote, into s.dst from the marks of commas
// and quotes: the record of a table's dump, quoted fields (JSON columns,
// their quotes doubled) with no line break in them, each closed right
// before a comma or the record's end, and no quote elsewhere (the quotes
// of the quoted fields are all the record's). It returns the number of
// fields; false for any other record, slowRecord's to split, with data as
// it was.
func (s *splitter) quotedMasked(data []byte, pos, end int) (int, bool) {
	if data[end-1] == '\r' {
		return 0, false
	}
	at, cols := &s.dst.at, s.pos
	var esc [maxEscaped][3]int // field, start, end of the fields to unescape
	k, nesc, quotes := 0, 0, 0
	for i := pos; ; k++ {
		a, b, next := i, 0, 0
		if i < end && data[i] == '"' {
			var pairs int
			a = i + 1
			b, pairs = s.closingMark(data, a, end)
			if b == end || (b+1 < end && data[b+1] != ',') {
				return 0, false
			}
			if pairs > 0 {
				if nesc == maxEscaped {
					return 0, false
				}
				esc[nesc] = [3]int{k, a, b}
				nesc++
			}
			quotes += 2 + 2*pairs
			next = b + 1
		} else {
			b = nextMark(s.masks, i, end)
			next = b
		}
		if uint(k) < uint(len(cols)) {
			at[cols[k]&(maxCols-1)] = [2]int32{int32(a), int32(b)}
		}
		if next >= end {
			break
		}
		i = next + 1
	}
	if countMarks(s.quotes, pos, end) != quotes {
		return 0, false // a quote inside an unquoted field
	}
	for _, e := range esc[:nesc] {
		if e[0]+1 == s.keep {
			s.dst.doubled = true
			continue
		}
		b := s.unescapeMarked(data, e[1], e[2])
		if uint(e[0]) < uint(len(cols)) {
			at[cols[e[0]]&(maxCols-1)][1] = int32(b)
		}
	}
	return k + 1, true
}

// plainRecord is record in a plain chunk (splitter.plain, with lines):
// its line's end and whether it holds a quote are read from the marks.
func (s *splitter) plainRecord(data []byte, pos int) (next, lines int, blank bool, bad string) {
	end := nextMark(s.lines, pos, len(data))
	next = end
	if end < len(data) {
		next, lines = end+1, 1
	}
	switch {
	case nextMark(s.quotes, pos, end) < end:
		if data[end-1] != '\r' {
			if n, ok := s.splitPlain(data, pos, end); ok {
				s.n = n
				return next, lines, false, ""
			}
		}
		if n, ok := s.quotedMasked(data, pos, end); ok {
			s.n = n
			return next, lines, false, ""
		}
		return s.slowRecord(data, pos)
	case end > pos && data[end-1] == '\r':
		end--
	}
	if end == pos {
		return next, lines, true, ""
	}
	s.n = s.splitMasked(pos, end)
	return next, lines, false, ""
}

// splitPlain is quotedMasked for the record data[pos:end] of a plain
// chunk (splitter.plain): its fields end at the commas outside quoted
// fields (splitMasked), and a field that starts with a quote is quoted,
// closed by its last byte when it holds an even number of quotes, every
// quote between the first or second of a pair. It returns false, data as
// it was, for a record not so.
func (s *splitter) splitPlain(data []byte, pos, end int) (int, bool) {
	n := s.splitMasked(pos, end)
	at, cols := &s.dst.at, s.pos
	var esc [maxEscaped]int // columns to unescape
	nesc := 0
	for k, c := range cols[:min(n, len(cols))] {
		f := &at[c&(maxCols-1)]
		a, b := f[0], f[1]
		if c == trashCol || a == b || data[a] != '"' {
			continue
		}
		quotes := countMarks(s.quotes, int(a), int(b))
		if quotes&1 != 0 || data[b-1] != '"' {
			return 0, false // not closed, but at the input's end
		}
		f[0], f[1] = a+1, b-1
		switch {
		case quotes == 2:
		case k+1 == s.keep:
			s.dst.doubled = true
		case nesc == maxEscaped:
			return 0, false
		default:
			esc[nesc] = c & (maxCols - 1)
			nesc++
		}
	}
	for _, c := range esc[:nesc] {
		at[c][1] = int32(s.unescapeMarked(data, int(at[c][0]), int(at[c][1])))
	}
	return n, true
}

// countMarks returns how many bytes of data[from:to] masks mark.
func countMarks(masks []uint64, from, to int) int {
	if from >= to {
		return 0
	}
	w, last := from>>6, (to-1)>>6
	low, high := ^uint64(0)<<(from&63), ^uint64(0)>>(63-(to-1)&63)
	if w == last {
		return bits.OnesCount64(masks[w] & low & high)
	}
	n := bits.OnesCount64(masks[w] & low)
	for w++; w < last; w++ {
		n += bits.OnesCount64(masks[w])
	}
	return n + bits.OnesCount64(masks[last]&high)
}

// closingMark returns the index of the quote that closes a quoted field
// whose text starts at data[j], found from the marks of quotes (a quote
// followed by another is a quote of the text), end when there is none
// before end, and the pairs of doubled quotes before it. The marks are
// taken a word at a time: a pair clears its two.
func (s *splitter) closingMark(data []byte, j, end int) (q, pairs int) {
	w := j >> 6
	m := s.quotes[w] &^ (1<<(j&63) - 1)
	for {
		for m == 0 {
			if w++; w<<6 >= end {
				return end, pairs
			}
			m = s.quotes[w]
		}
		q = w<<6 + bits.TrailingZeros64(m)
		switch {
		case q >= end:
			return end, pairs
		case q+1 == end || data[q+1] != '"':
			return q, pairs
		}
		pairs++
		if m &= m - 1; q&63 != 63 {
			m &= m - 1 // the pair's second, marked next in this word
		} else if w++; w<<6 < end {
			m = s.quotes[w] &^ 1 // the pair's second, the next word's first
		}
	}
}

// unescapeMarked turns the doubled quotes of the quoted field text
// data[a:b] into single ones, in place, and returns the text's new end.
// Every quote there is the first or second of a pair (closingMark): the
// pairs are found from the marks of quotes, and the text between them
// copied a word at a time into s.unquoted, then back in one piece.
func (s *splitter) unescapeMarked(data []byte, a, b int) int {
	if need := b - a + 16; cap(s.unquoted) < need {
		s.unquoted = make([]byte, need)
	}
	out := s.unquoted[:cap(s.unquoted)]
	w, r := 0, a
	word := a >> 6
	m := s.quotes[word] &^ (1<<(a&63) - 1)
pairs:
	for {
		for m == 0 {
			if word++; word<<6 >= b {
				break pairs
			}
			m = s.quotes[word]
		}
		q := word<<6 + bits.TrailingZeros64(m)
		if q >= b {
			break
		}
		w += copyWords(out[w:], data, r, q+1) // the text and the first quote
		r = q + 2
		if m &= m - 1; q&63 != 63 {
			m &= m - 1 // the second quote, marked next in this word
		} else if word++; word<<6 < b {
			m = s.quotes[word] &^ 1 // the second quote, the next word's first
		} else {
			break
		}
	}
	w += copyWords(out[w:], data, r, b)
	return a + copy(data[a:], out[:w])
}

// copyWords copies data[from:to] to dst a word at a time, when data goes
// on for a word past to and dst has room for a word more (else with
// copy): the text between two doubled quotes is a few bytes, too short
// for copy to pay. The words are moved unaligned (amd64, where the
// splitter marks quotes), without a check of bounds each: the two above
// are the bounds.
func copyWords(dst, data []byte, from, to int) int {
	n := to - from
	if from < 0 || n < 0 || to+8 > len(data) || n+8 > len(dst) {
		return copy(dst, data[from:to])
	}
	src := unsafe.Add(unsafe.Pointer(unsafe.SliceData(data)), from)
	out := unsafe.Pointer(unsafe.SliceData(dst))
	for i := 0; i < n; i += 8 {
		*(*uint64)(unsafe.Add(out, i)) = *(*uint64)(unsafe.Add(src, i))
	}
	return n
}

// splitMasked is splitInto for the line data[base:end], its commas read
// from s.masks: a word of marks covers 64 bytes, and each comma costs a
// few instructions.
func (s *splitter) splitMasked(base, end int) int {
	at, pos, masks := &s.dst.at, s.pos, s.masks
	k, start := 0, int32(base) // fields seen, offset of the current field
	w, last := base>>6, end>>6
	z := masks[w] &^ (1<<(base&63) - 1) // the marks before the line are not its
	for {
		if w == last {
			z &= 1<<(end&63) - 1 // nor those after it
		}
		for ; z != 0; z &= z - 1 {
			comma := int32(w<<6 + bits.TrailingZeros64(z))
			if uint(k) < uint(len(pos)) {
				at[pos[k]&(maxCols-1)] = [2]int32{start, comma}
			}
			k++
			start = comma + 1
		}
		if w >= last {
			break
		}
		w++
		z = masks[w]
	}
	if uint(k) < uint(len(pos)) {
		at[pos[k]&(maxCols-1)] = [2]int32{start, int32(end)}
	}
	return k + 1
}

// commas returns a word with the high bit set in each byte of w that is a
// comma.
func commas(w uint64) uint64 { return bytesOf(w, ',') }

// bytesOf returns a word with the high bit set in each byte of w equal to
// c: w XORed with eight c's has a zero byte there. The test is exact: no
// other byte is marked.
func bytesOf(w uint64, c byte) uint64 {
	const lo, low7 = 0x0101010101010101, 0x7F7F7F7F7F7F7F7F
	y := w ^ (lo * uint64(c))
	return ^(((y & low7) + low7) | y | low7)
}

// fieldStop returns the index of the first comma, newline or quote in
// data from i on, len(data) if none: where an unquoted field of a quoted
// record ends, or a quote that makes it malformed. Fields are short, so
// eight bytes are tested at a time rather than searched for each.
func fieldStop(data []byte, i int) int {
	for ; i+8 <= len(data); i += 8 {
		w := binary.LittleEndian.Uint64(data[i:])
		if m := bytesOf(w, ',') | bytesOf(w, '\n') | bytesOf(w, '"'); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for ; i < len(data); i++ {
		if c := data[i]; c == ',' || c == '\n' || c == '"' {
			return i
		}
	}
	return len(data)
}

// closingQuote returns the index of the quote that closes a quoted field
// whose text starts at data[j] (a quote not followed by another; a
// doubled one is a quote of the text), -1 if data ends first. The quotes
// of a JSON column come a few bytes apart, doubled: each word's quotes
// are taken from one mark of them, a pair at a time.
func closingQuote(data []byte, j int) int {
	for j+8 <= len(data) {
		m := bytesOf(binary.LittleEndian.Uint64(data[j:]), '"')
		for m != 0 {
			q := j + bits.TrailingZeros64(m)>>3
			switch {
			case q+1 == len(data) || data[q+1] != '"':
				return q
			case q+1 < j+8: // the pair's second quote is marked next
				m &= m - 1
				m &= m - 1
			default: // the pair ends in the next word: go on after it
				j = q - 6
				m = 0
			}
		}
		j += 8
	}
	for ; j < len(data); j++ {
		if data[j] == '"' {
			if j+1 == len(data) || data[j+1] != '"' {
				return j
			}
			j++
		}
	}
	return -1
}

// slowRecord handles records that contain quotes.
func (s *splitter) slowRecord(data []byte, i int) (next, lines int, blank bool, bad string) {
	for {
		var garbage bool
		if i < len(data) && data[i] == '"' {
			var field []byte
			var n int
			field, i, n, garbage = quotedField(data, i)
			lines += n
			s.fields = append(s.fields, field)
			if i >= len(data) {
				if garbage {
					bad = "unterminated quoted field"
				}
				return len(data), lines, false, bad
			}
			switch {
			case data[i] == ',':
				i++
				continue
			case data[i] == '\n':
				return i + 1, lines + 1, false, bad
			case data[i] == '\r' && (i+1 == len(data) || data[i+1] == '\n'):
				if i+1 == len(data) {
					return len(data), lines, false, bad
				}
				return i + 2, lines + 1, false, bad
			}
			if bad == "" {
				bad = fmt.Sprintf("field %d: text after the closing quote", len(s.fields))
			}
			s.fields = s.fields[:len(s.fields)-1]
		}
		start := i
		for i = fieldStop(data, i); i < len(data) && data[i] == '"'; i = fieldStop(data, i+1) {
			if bad == "" {
				bad = fmt.Sprintf("field %d: quote inside an unquoted field", len(s.fields)+1)
			}
		}
		field := data[start:i]
		if i == len(data) || data[i] == '\n' { // the record's last field: drop a CR
			if n := len(field); n > 0 && field[n-1] == '\r' {
				field = field[:n-1]
			}
		}
		s.fields = append(s.fields, field)
		if i >= len(data) {
			return len(data), lines, false, bad
		}
		if data[i] == '\n' {
			return i + 1, lines + 1, false, bad
		}
		i++
	}
}

// quotedField reads the quoted field whose opening quote is data[i]. It
// returns the unescaped value (unescaped in place), the index after the
// closing quote, the newlines inside the field, and unterminated = true
// when the input ends before the closing quote.
func quotedField(data []byte, i int) (field []byte, next, lines int, unterminated bool) {
	start := i + 1
	j, w := start, start
	for {
		k := quoteOrNewline(data, j)
		if w != j {
			copy(data[w:], data[j:k])
		}
		w += k - j
		switch {
		case k == len(data):
			return data[start:w], len(data), lines, true
		case data[k] == '\n':
			lines++
			data[w] = '\n'
			w, j = w+1, k+1
		case k+1 < len(data) && data[k+1] == '"':
			data[w] = '"'
			w, j = w+1, k+2
		default:
			return data[start:w], k + 1, lines, false
		}
	}
}

// quoteOrNewline returns the index of the first quote or newline in data
// from i on, len(data) if none, eight bytes at a time: a quoted JSON
// column has a doubled quote every few bytes.
func quoteOrNewline(data []byte, i int) int {
	for ; i+8 <= len(data); i += 8 {
		w := binary.LittleEndian.Uint64(data[i:])
		if m := bytesOf(w, '"') | bytesOf(w, '\n'); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for ; i < len(data); i++ {
		if c := data[i]; c == '"' || c == '\n' {
			return i
		}
	}
	return len(data)
}

var nl = []byte{'\n'}
