package ledger

import (
	"encoding/json"
	"testing"
)

// TestLooseTextStringsAsDecoded: a metadata label read as a JSON string
// is the string encoding/json decodes, whether it holds escapes, text
// beyond ASCII or bytes that are not UTF-8 (each a U+FFFD); a number is
// its text as written; anything else is no label.
func TestLooseTextStringsAsDecoded(t *testing.T) {
	for _, raw := range []string{`"growth"`, `""`, `"a\"b"`, `"caf\u00e9"`, `"café"`, `"tab\there"`, "\"bad\xff\xfebytes\"",
		`"\ud83d\ude00"`, ` "padded" `, `"back\\slash"`} {
		var want string
		if err := json.Unmarshal([]byte(raw), &want); err != nil {
			t.Fatalf("%q: %v", raw, err)
		}
		var got looseText
		if err := got.UnmarshalJSON([]byte(raw)); err != nil || !got.ok || got.s != want {
			t.Errorf("%q: read %q (%v), want %q", raw, got.s, got.ok, want)
		}
	}
	for raw, want := range map[string]looseText{`42`: {"42", true}, `-1.5e3`: {"-1.5e3", true}, `true`: {}, `null`: {}, `{"a": 1}`: {}, `["x"]`: {}} {
		var got looseText
		if err := got.UnmarshalJSON([]byte(raw)); err != nil || got != want {
			t.Errorf("%s: read %+v, want %+v", raw, got, want)
		}
	}
}
