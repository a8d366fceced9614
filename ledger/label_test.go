package ledger

import (
	"encoding/json"
	"testing"
)

// readLabel reads raw as a metadata label.
func readLabel(raw string) label {
	s := jsonScanner{b: []byte(raw)}
	s.space()
	var l label
	s.label(&l)
	return l
}

// TestLabelsAsDecoded: a metadata label read as a JSON string is the
// string encoding/json decodes, whether it holds escapes, text beyond
// ASCII or bytes that are not UTF-8 (each a U+FFFD); a number is its text
// as jsonb writes it back; anything else is no label.
func TestLabelsAsDecoded(t *testing.T) {
	for _, raw := range []string{`"growth"`, `""`, `"a\"b"`, `"caf\u00e9"`, `"café"`, `"tab\there"`, "\"bad\xff\xfebytes\"",
		`"\ud83d\ude00"`, ` "padded" `, `"back\\slash"`, `"\ud83d"`, `"\ude00\ud83d x"`, `"\/\b\f\n\r"`} {
		var want string
		if err := json.Unmarshal([]byte(raw), &want); err != nil {
			t.Fatalf("%q: %v", raw, err)
		}
		if got := readLabel(raw); !got.ok || string(got.text) != want {
			t.Errorf("%q: read %q (%v), want %q", raw, got.text, got.ok, want)
		}
	}
	for raw, want := range map[string]string{`42`: "42", `-1.5e3`: "-1500", `0.50`: "0.50", `-0`: "0", `1E+2`: "100", `25e-1`: "2.5"} {
		if got := readLabel(raw); !got.ok || string(got.text) != want {
			t.Errorf("%s: read %q (%v), want %q", raw, got.text, got.ok, want)
		}
	}
	for _, raw := range []string{`true`, `null`, `{"a": 1}`, `["x"]`} {
		if got := readLabel(raw); got.ok || got.text != nil {
			t.Errorf("%s: read %+v, want no label", raw, got)
		}
	}
}
