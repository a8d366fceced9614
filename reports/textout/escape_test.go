package textout

import (
	"bytes"
	"testing"
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
