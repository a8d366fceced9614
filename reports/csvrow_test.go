package reports

import (
	"bytes"
	"encoding/csv"
	"math/rand/v2"
	"testing"
)

// TestCSVRowIsEncodingCSV holds appendCSVRecord to encoding/csv's Writer,
// byte for byte: fields it must quote (commas, quotes, line breaks, a
// leading space of any kind, `\.`), fields it must not, and random fields
// made of those characters.
func TestCSVRowIsEncodingCSV(t *testing.T) {
	cases := []struct {
		name   string
		fields []string
	}{
		{name: "plain", fields: []string{"deepseek-v4-flash", "0.0014976", "-3"}},
		{name: "empty fields", fields: []string{"", "", ""}},
		{name: "comma and quote", fields: []string{"a,b", `say "hi"`, `"`}},
		{name: "line breaks", fields: []string{"a\nb", "a\r\nb", "\r"}},
		{name: "leading spaces", fields: []string{" a", "\ta", "\u00a0a", "\u2003a", "a "}},
		{name: "backslash dot", fields: []string{`\.`, `\.x`, `x\.`}},
		{name: "not UTF-8", fields: []string{"\xff", "\xe2\x80"}},
	}
	check := func(t *testing.T, fields []string) {
		t.Helper()
		var want bytes.Buffer
		cw := csv.NewWriter(&want)
		if err := cw.Write(fields); err != nil {
			t.Fatal(err)
		}
		cw.Flush()
		if got := appendCSVRecord(nil, fields); string(got) != want.String() {
			t.Fatalf("%q: got %q, want encoding/csv's %q", fields, got, want.String())
		}
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { check(t, tc.fields) })
	}
	t.Run("random", func(t *testing.T) {
		rng := rand.New(rand.NewPCG(5, 26))
		parts := []string{"a", "Z", "0", ",", `"`, "\r", "\n", " ", "\t", "\u00a0", "\u3000", `\`, ".", "é", "\xff", "'", "="}
		for range 20000 {
			fields := make([]string, rng.IntN(5))
			for i := range fields {
				for range rng.IntN(4) {
					fields[i] += parts[rng.IntN(len(parts))]
				}
			}
			check(t, fields)
		}
	})
}
