package litellm

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// text is a config's bytes with the offset of each line, so that a node's
// line and column (which yaml.v3 counts in characters) become byte offsets
// and values can be replaced in the original bytes.
type text struct {
	src   []byte
	lines []int // byte offset of the start of each line; lines[0] = 0
	eol   string
}

func newText(src []byte) *text {
	t := &text{src: src, lines: []int{0}, eol: "\n"}
	for i, c := range src {
		if c == '\n' {
			t.lines = append(t.lines, i+1)
		}
	}
	if i := bytes.IndexByte(src, '\n'); i > 0 && src[i-1] == '\r' {
		t.eol = "\r\n"
	}
	return t
}

// offset returns the byte offset of line and column (both from 1, the
// column in characters).
func (t *text) offset(line, col int) int {
	if line < 1 || line > len(t.lines) {
		return len(t.src)
	}
	off := t.lines[line-1]
	for c := 1; c < col && off < len(t.src); c++ {
		_, n := utf8.DecodeRune(t.src[off:])
		off += n
	}
	return off
}

// lineOf returns the line (from 1) holding byte offset off.
func (t *text) lineOf(off int) int {
	lo, hi := 0, len(t.lines)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if t.lines[mid] <= off {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo + 1
}

// lineEnd returns the offset of the end of line (before its line break).
func (t *text) lineEnd(line int) int {
	if line >= len(t.lines) {
		return len(t.src)
	}
	end := t.lines[line] - 1
	if end > 0 && t.src[end-1] == '\r' {
		end--
	}
	return end
}

// lineText returns line without its line break.
func (t *text) lineText(line int) string {
	return string(t.src[t.lines[line-1]:t.lineEnd(line)])
}

// indentOf returns the number of leading spaces of line, and whether the
// line holds anything but spaces and a comment.
func (t *text) indentOf(line int) (int, bool) {
	s := t.lineText(line)
	n := 0
	for n < len(s) && s[n] == ' ' {
		n++
	}
	rest := s[n:]
	return n, rest != "" && rest[0] != '#'
}

// scalarSpan returns the byte range of the scalar node n as written: its
// token, without the anchor or tag before it and without a comment after.
// It refuses scalars it cannot place exactly (block scalars, plain scalars
// over several lines). An explicit tag (!!float 3.0e-7) is a property like
// an anchor: the token after it is the span.
func (t *text) scalarSpan(n *yaml.Node) (start, end int, err error) {
	off := t.offset(n.Line, n.Column)
	off = t.skipProperties(off)
	switch n.Style &^ yaml.TaggedStyle {
	case yaml.DoubleQuotedStyle, yaml.SingleQuotedStyle:
		end, ok := t.quotedEnd(off)
		if !ok {
			return 0, 0, fmt.Errorf("line %d: cannot find the end of the quoted value", n.Line)
		}
		return off, end, nil
	case 0, yaml.FlowStyle:
		if n.Value == "" {
			return 0, 0, fmt.Errorf("line %d: key has no value; write a number there", n.Line)
		}
		end := off
		for end < len(t.src) {
			c := t.src[end]
			if c == '\n' || c == '\r' || c == ',' || c == ']' || c == '}' ||
				(c == '#' && end > off && (t.src[end-1] == ' ' || t.src[end-1] == '\t')) {
				break
			}
			end++
		}
		for end > off && (t.src[end-1] == ' ' || t.src[end-1] == '\t') {
			end--
		}
		if string(t.src[off:end]) != n.Value {
			return 0, 0, fmt.Errorf("line %d: value %q is not written on one line as read", n.Line, n.Value)
		}
		return off, end, nil
	}
	return 0, 0, fmt.Errorf("line %d: value written as a block scalar cannot be edited in place", n.Line)
}

// skipProperties skips an anchor (&name) or tag (!tag) and the spaces
// after it.
func (t *text) skipProperties(off int) int {
	for off < len(t.src) && (t.src[off] == '&' || t.src[off] == '!') {
		for off < len(t.src) && t.src[off] != ' ' && t.src[off] != '\t' && t.src[off] != '\n' {
			off++
		}
		for off < len(t.src) && (t.src[off] == ' ' || t.src[off] == '\t') {
			off++
		}
	}
	return off
}

// quotedEnd returns the offset just after the quoted scalar opening at off.
func (t *text) quotedEnd(off int) (int, bool) {
	q := t.src[off]
	for i := off + 1; i < len(t.src); i++ {
		switch {
		case q == '"' && t.src[i] == '\\':
			i++
		case t.src[i] == q && q == '\'' && i+1 < len(t.src) && t.src[i+1] == '\'':
			i++
		case t.src[i] == q:
			return i + 1, true
		}
	}
	return 0, false
}
