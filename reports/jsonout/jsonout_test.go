package jsonout

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// standard is what a json.Encoder with SetIndent("", "  ") writes.
func standard(t testing.TB, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestWriteMatchesEncoder(t *testing.T) {
	type inner struct {
		A string            `json:"a"`
		B []int             `json:"b"`
		M map[string]string `json:"m"`
		E struct{}          `json:"e"`
		P *inner            `json:"p,omitempty"`
	}
	values := []any{
		nil, 0, -1.5e-7, "", `quote " and \ backslash \\" end\`, "<html>&", "tab\tnewline\n\u2028",
		[]any{}, map[string]any{}, []any{[]any{}, map[string]any{}, []any{1, []any{2}}},
		map[string]any{"{[,:]}": "}]:,[{", `\"`: `\\`, "": nil},
		inner{A: `a\"b`, B: []int{1, 2}, M: map[string]string{"k": "v", "x\\": "\"y"}, P: &inner{B: []int{}}},
		[]string{`\`, `\\`, `\\\`, `"`, `\"`, `\\"`},
	}
	for _, v := range values {
		sameAsEncoder(t, v)
	}
}

// sameAsEncoder fails the test unless Write writes v as the encoder does.
func sameAsEncoder(t *testing.T, v any) {
	t.Helper()
	var got bytes.Buffer
	if err := Write(&got, v); err != nil {
		t.Fatal(err)
	}
	if want := standard(t, v); !bytes.Equal(got.Bytes(), want) {
		t.Fatalf("value %#v:\ngot  %s\nwant %s", v, got.Bytes(), want)
	}
}

// TestRandomValues compares with the encoder on random nested values whose
// strings are made of JSON's punctuation, quotes and backslashes.
func TestRandomValues(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	pieces := []string{`"`, `\`, `{`, `}`, `[`, `]`, `,`, `:`, ` `, `a`, "\n", `\u`, `é`}
	str := func() string {
		var b strings.Builder
		for range rng.IntN(6) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		return b.String()
	}
	var value func(depth int) any
	value = func(depth int) any {
		switch k := rng.IntN(7); {
		case depth > 4 || k == 0:
			return str()
		case k == 1:
			return rng.IntN(1000) - 500
		case k == 2:
			return rng.IntN(2) == 0
		case k == 3:
			return nil
		case k == 4:
			m := map[string]any{}
			for range rng.IntN(4) {
				m[str()] = value(depth + 1)
			}
			return m
		default:
			a := []any{}
			for range rng.IntN(4) {
				a = append(a, value(depth+1))
			}
			return a
		}
	}
	for range 5000 {
		sameAsEncoder(t, value(0))
	}
}

func BenchmarkWrite(b *testing.B) {
	type group struct {
		Model, Key, Day, Recorded, Official string
		Calls                               int
	}
	gs := make([]group, 10000)
	for i := range gs {
		gs[i] = group{"deepseek-v4-flash", strings.Repeat("ab", 32), "2026-10-01", "12.345678", "23.456789", i}
	}
	b.Run("jsonout", func(b *testing.B) {
		for b.Loop() {
			Write(&bytes.Buffer{}, gs)
		}
	})
	b.Run("encoder", func(b *testing.B) {
		for b.Loop() {
			standard(b, gs)
		}
	})
}
