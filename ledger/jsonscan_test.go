package ledger

import (
	"bytes"
	"testing"
)

// TestPlainRunStopsWhereBytesDo: the word-at-a-time run through a string
// stops at the first byte that ends it, wherever it lies in a word, and
// also when a byte that does not end it (' ', '!', 0x7f) sits below.
func TestPlainRunStopsWhereBytesDo(t *testing.T) {
	for c := range 256 {
		for at := range 19 {
			for _, fill := range []byte{'a', ' ', 0x7f, '!'} {
				b := bytes.Repeat([]byte{fill}, 19)
				b[at] = byte(c)
				want := len(b)
				if strStop[c] {
					want = at
				}
				if got := plainRun(b, 0); got != want {
					t.Fatalf("byte %#x at %d among %q: stop %d, want %d", c, at, fill, got, want)
				}
			}
		}
	}
}

// TestPlainRunFirstOfTwo: of two stops in a word, the first is found,
// whatever the second (a borrow from a control byte must not mark the
// bytes above it first).
func TestPlainRunFirstOfTwo(t *testing.T) {
	for _, pair := range [][2]byte{{0x1f, '"'}, {'"', 0x00}, {0x00, 0x20}, {0x80, 0x1f}, {'\\', 0xff}} {
		for at := range 7 {
			b := bytes.Repeat([]byte{'x'}, 16)
			b[at], b[at+1] = pair[0], pair[1]
			if got := plainRun(b, 0); got != at {
				t.Errorf("%#x %#x at %d: stop %d", pair[0], pair[1], at, got)
			}
		}
	}
}

// TestMemberNameExact: a member's name is read exactly as written once
// its escapes are resolved, in a document read as it is and with its
// quotes doubled: no letter is folded, whatever its case or script.
func TestMemberNameExact(t *testing.T) {
	for _, tc := range []struct {
		name, doc, want string
		is              bool // nameIs("user_api_key_alias")
	}{
		{name: "plain", doc: `{"user_api_key_alias": 1}`, want: "user_api_key_alias", is: true},
		{name: "capitalised", doc: `{"User_Api_Key_Alias": 1}`, want: "User_Api_Key_Alias"},
		{name: "upper case", doc: `{"USER_API_KEY_ALIAS": 1}`, want: "USER_API_KEY_ALIAS"},
		{name: "one capital, last", doc: `{"user_api_key_aliaS": 1}`, want: "user_api_key_aliaS"},
		{name: "an escaped underscore", doc: `{"user\u005fapi_key_alias": 1}`, want: "user_api_key_alias", is: true},
		{name: "every byte escaped", doc: `{"\u0075\u0073\u0065\u0072_api_key_alia\u0073": 1}`, want: "user_api_key_alias", is: true},
		{name: "an escaped capital", doc: `{"\u0055ser_api_key_alias": 1}`, want: "User_api_key_alias"},
		{name: "long s", doc: `{"user_api_key_aliaſ": 1}`, want: "user_api_key_aliaſ"},
		{name: "long s escaped", doc: `{"user_api_key_alia\u017f": 1}`, want: "user_api_key_aliaſ"},
		{name: "Kelvin sign", doc: `{"\u212aey": 1}`, want: "\u212aey"},
		{name: "an escaped slash and quote", doc: `{"a\/b\"c": 1}`, want: `a/b"c`},
		{name: "a trailing space", doc: `{"user_api_key_alias ": 1}`, want: "user_api_key_alias "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for doubled := range 2 {
				doc := []byte(tc.doc)
				if doubled == 1 {
					doc = bytes.ReplaceAll(doc, []byte(`"`), []byte(`""`))
				}
				s := jsonScanner{b: doc, doubled: doubled}
				if !s.open() || !s.member(true) {
					t.Fatalf("doubled %d: no member: %s", doubled, s.err)
				}
				if got := string(s.name()); got != tc.want {
					t.Errorf("doubled %d: name %q, want %q", doubled, got, tc.want)
				}
				if got := s.nameIs("user_api_key_alias"); got != tc.is {
					t.Errorf("doubled %d: nameIs %t, want %t", doubled, got, tc.is)
				}
			}
		})
	}
}

// TestPlainRunMatchesWords: plainRun (vectorised where it is) stops where
// the word-at-a-time plainRunWords does, from every start in buffers of
// every length up to 80 bytes, a stop byte or none at any place.
func TestPlainRunMatchesWords(t *testing.T) {
	stops := []byte{'"', '\\', 0x00, 0x1f, 0x80, 0xff, 0xc3}
	plain := []byte{'a', ' ', '!', 0x7f, '#', '[', ']', 0x20, 0x7e}
	for n := range 81 {
		for at := -1; at < n; at++ {
			b := make([]byte, n)
			for k := range b {
				b[k] = plain[(k*7+n)%len(plain)]
			}
			if at >= 0 {
				b[at] = stops[(at+n)%len(stops)]
			}
			for i := 0; i <= n; i++ {
				if got, want := plainRun(b, i), plainRunWords(b, i); got != want {
					t.Fatalf("%q from %d: %d, want %d", b, i, got, want)
				}
			}
		}
	}
}
