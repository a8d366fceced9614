// Package jsonout writes values as indented JSON, byte for byte as a
// json.Encoder with SetIndent("", "  ") does, but indents in one quick pass:
// the standard indenter steps a scanner through every byte, which on a
// report of thousands of groups costs more than marshalling it.
package jsonout

import (
	"bytes"
	"encoding/json"
	"io"
)

// indent is the text of one level.
const indent = "  "

// Write writes v to w as JSON indented by two spaces, with a final newline.
func Write(w io.Writer, v any) error {
	compact, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(Indent(make([]byte, 0, len(compact)+len(compact)/2), compact))
	return err
}

// Indent appends src, the compact JSON json.Marshal makes (no space
// between tokens), to dst indented as json.Indent(dst, src, "", "  ")
// would, followed by a newline.
func Indent(dst, src []byte) []byte {
	depth := 0
	open := false // after '{' or '[': the indent waits, so that empty ones stay {} and []
	for i := 0; i < len(src); i++ {
		c := src[i]
		if open && c != '}' && c != ']' {
			open = false
			depth++
			dst = newline(dst, depth)
		}
		switch c {
		case '"':
			end := stringEnd(src, i)
			dst = append(dst, src[i:end]...)
			i = end - 1
		case '{', '[':
			open = true
			dst = append(dst, c)
		case ',':
			dst = append(dst, c)
			dst = newline(dst, depth)
		case ':':
			dst = append(dst, ':', ' ')
		case '}', ']':
			if open {
				open = false
			} else {
				depth--
				dst = newline(dst, depth)
			}
			dst = append(dst, c)
		default:
			dst = append(dst, c)
		}
	}
	return append(dst, '\n')
}

// stringEnd returns the index after the closing quote of the string that
// opens at src[i]; len(src) when it never closes.
func stringEnd(src []byte, i int) int {
	for j := i + 1; ; {
		q := bytes.IndexByte(src[j:], '"')
		if q < 0 {
			return len(src)
		}
		q += j
		// The quote is escaped when an odd number of backslashes precede it.
		k := q
		for k > i+1 && src[k-1] == '\\' {
			k--
		}
		if (q-k)%2 == 0 {
			return q + 1
		}
		j = q + 1
	}
}

func newline(dst []byte, depth int) []byte {
	dst = append(dst, '\n')
	for range depth {
		dst = append(dst, indent...)
	}
	return dst
}
