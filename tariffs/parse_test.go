package tariffs

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// head is a valid file preamble; cases append versions or replace parts.
const head = `provider: p
currency: USD
timezone: Asia/Shanghai
billing_time: end
sources:
  - {url: https://example.com, kind: official, checked: 2026-11-30}
models:
  - id: m
    names: [m, p/m]
`

func TestParseProblems(t *testing.T) {
	tests := []struct {
		name string
		file string
		want []string // every problem, in order of line, exactly
	}{
		{
			name: "unknown key",
			file: head + "colour: red\nversions:\n  - effective: 2026-01-01T00:00:00Z\n    prices: {m: {standard: {input: 1, output: 2}}}\n",
			want: []string{`t.yaml:10: unknown key "colour"`},
		},
		{
			name: "versions out of order",
			file: head + `versions:
  - effective: 2026-02-01T00:00:00Z
    prices: {m: {standard: {input: 1, output: 2}}}
  - effective: 2026-01-01T00:00:00Z
    prices: {m: {standard: {input: 1, output: 2}}}
`,
			want: []string{`t.yaml:13: version 2026-01-01T00:00:00Z is not after version 2026-02-01T00:00:00Z: versions must be in order and may not overlap`},
		},
		{
			name: "versions at the same instant overlap",
			file: head + `versions:
  - effective: 2026-01-01T08:00:00+08:00
    prices: {m: {standard: {input: 1, output: 2}}}
  - effective: 2026-01-01T00:00:00Z
    prices: {m: {standard: {input: 1, output: 2}}}
`,
			want: []string{`t.yaml:13: version 2026-01-01T00:00:00Z takes effect at the same instant as version 2026-01-01T08:00:00+08:00: versions must be in order and may not overlap`},
		},
		{
			name: "window that starts where it ends, bad weekday, overlap",
			file: head + `versions:
  - effective: 2026-01-01T00:00:00Z
    periods:
      - name: peak
        weekdays: [mon, funday]
        windows: ["09:00-09:00", "10:00-12:00"]
      - name: lunch
        windows: ["11:00-13:00"]
    prices:
      m:
        standard: {input: 1, output: 2}
        peak: {input: 2, output: 4}
        lunch: {input: 2, output: 4}
`,
			want: []string{
				`t.yaml:14: version 2026-01-01T00:00:00Z: period "peak": weekday "funday" is not one of mon, tue, wed, thu, fri, sat, sun`,
				`t.yaml:15: version 2026-01-01T00:00:00Z: period "peak": window "09:00-09:00" starts where it ends (write 00:00-24:00 for the whole day)`,
				`t.yaml:17: version 2026-01-01T00:00:00Z: window 11:00-13:00 of period "lunch" overlaps period "peak"`,
			},
		},
		{
			name: "bad zone",
			file: strings.Replace(head, "Asia/Shanghai", "Mars/Olympus", 1) + "versions:\n  - effective: 2026-01-01T00:00:00Z\n    prices: {m: {standard: {input: 1, output: 2}}}\n",
			want: []string{`t.yaml:3: timezone "Mars/Olympus" is not an IANA time zone`},
		},
		{
			name: "period priced but not defined, defined but not priced, negative price",
			file: head + `versions:
  - effective: 2026-01-01T00:00:00Z
    periods:
      - {name: peak, windows: ["09:00-12:00"]}
    prices:
      m:
        standard: {input: -1, output: 2}
        night: {input: 1, output: 2}
`,
			want: []string{
				`t.yaml:15: version 2026-01-01T00:00:00Z: model "m" has no prices for period "peak"`,
				`t.yaml:16: m standard input price -1 is negative`,
				`t.yaml:17: version 2026-01-01T00:00:00Z: model "m" is priced for period "night", which is not defined (periods: standard, peak)`,
			},
		},
		{
			name: "price that is not a decimal",
			file: head + "versions:\n  - effective: 2026-01-01T00:00:00Z\n    prices: {m: {standard: {input: 0x1p-3, output: 2}}}\n",
			want: []string{`t.yaml:12: m standard input price "0x1p-3" is not a decimal number`},
		},
		{
			name: "repeated key in a rate set",
			file: head + "versions:\n  - effective: 2026-01-01T00:00:00Z\n    prices: {m: {standard: {input: 1, output: 2, input: 5}}}\n",
			want: []string{`t.yaml:12: key "input" is repeated (first at line 12)`},
		},
		{
			name: "effective outside the years instants hold, version without effective, null rates",
			file: head + "versions:\n  - effective: 1500-01-01T00:00:00Z\n    prices: {m: {standard: {input: 1, output: 2}}}\n  - prices: {m: {standard: {input: 1, output: 2}}}\n  - effective: 2026-01-01T00:00:00Z\n    prices:\n      m:\n        standard: ~\n",
			want: []string{
				`t.yaml:11: effective 1500-01-01T00:00:00Z is outside the years 1678 to 2261 that instants can hold`,
				`t.yaml:13: version effective instant is required`,
				`t.yaml:17: version 2026-01-01T00:00:00Z: model "m" period "standard": input price is required`,
				`t.yaml:17: version 2026-01-01T00:00:00Z: model "m" period "standard": output price is required`,
			},
		},
		{
			name: "version name used twice, version without prices, empty default period",
			file: head + "versions:\n  - effective: 2026-01-01T00:00:00Z\n    name: v\n    prices: {m: {standard: {input: 1, output: 2}}}\n  - effective: 2026-02-01T00:00:00Z\n    name: v\n    default_period: \"\"\n",
			want: []string{
				`t.yaml:14: version v prices no model (prices is required)`,
				`t.yaml:14: version name "v" is used twice (first at line 11)`,
				`t.yaml:14: version v (2026-02-01T00:00:00Z): model "m" was priced in version v (2026-01-01T00:00:00Z) and is neither priced nor retired here`,
				`t.yaml:16: version v: default_period is empty`,
			},
		},
		{
			name: "price out of range",
			file: head + "versions:\n  - effective: 2026-01-01T00:00:00Z\n    prices: {m: {standard: {input: 0e44444440, output: 1e-30}}}\n",
			// A zero's exponent is bounded as every number's is (numtext).
			want: []string{`t.yaml:12: m standard input price "0e44444440" is out of range: exponents run from -64 to 64`,
				`t.yaml:12: m standard output price "1e-30" is out of range (at most 24 decimal places, below 10^12)`},
		},
		{
			name: "price of 10,000 digits",
			file: head + "versions:\n  - effective: 2026-01-01T00:00:00Z\n    prices: {m: {standard: {input: 0." + strings.Repeat("1", 10000) + ", output: 1}}}\n",
			want: []string{`t.yaml:12: m standard input price (10002 characters) is too long: a number has at most 128 characters and 40 significant digits`},
		},
		{
			name: "huge aliased anchor",
			file: head + "x-big: &big [" + strings.Repeat("1,", 99999) + "1]\nversions:\n  - effective: 2026-01-01T00:00:00Z\n    prices: {m: {standard: {input: 1, output: 2}}}\n" +
				strings.Repeat("    notes: *big\n", 3),
			want: []string{`t.yaml:15: aliases expand too far: at *big they add more than 200000 nodes to the document`},
		},
		{
			name: "one name claimed by two models",
			file: head + "  - id: n\n    names: [P/M]\nversions:\n  - effective: 2026-01-01T00:00:00Z\n    prices: {m: {standard: {input: 1, output: 2}}, n: {standard: {input: 1, output: 2}}}\n",
			want: []string{`t.yaml:11: name "P/M" is claimed by models "m" and "n"`},
		},
		{
			name: "a date both holiday and workday",
			file: head + `calendar:
  holidays: [{date: 2026-10-01}]
  workdays: [{date: 2026-10-01}]
versions:
  - effective: 2026-01-01T00:00:00Z
    prices: {m: {standard: {input: 1, output: 2}}}
`,
			want: []string{`t.yaml:12: date 2026-10-01 is both a holiday and a make-up workday`},
		},
		{
			name: "boundary not on a whole minute is flagged",
			file: head + "versions:\n  - effective: 2026-01-01T00:00:30Z\n    prices: {m: {standard: {input: 1, output: 2}}}\n",
			want: []string{`t.yaml:11: warning: version 2026-01-01T00:00:30Z: effective 2026-01-01T00:00:30Z is not on a whole minute (tariffs change on whole minutes: a typo?)`},
		},
		{
			name: "an unknown key does not stop the rest",
			file: head + "colour: red\nversions:\n  - effective: 2026-01-01T00:00:00Z\n    prices: {m: {standard: {input: -1, output: 2}}}\n",
			want: []string{`t.yaml:10: unknown key "colour"`, "t.yaml:13: m standard input price -1 is negative"},
		},
		{
			name: "a list where a price belongs is reported once",
			file: head + "versions:\n  - effective: 2026-01-01T00:00:00Z\n    prices: {m: {standard: {input: [1], output: 2}}}\n",
			want: []string{"t.yaml:12: expected a single value, not a list"},
		},
		{
			name: "values of the wrong kind are reported once each, in the file's terms",
			file: `provider: p
currency: USD
timezone: {zone: UTC}
billing_time: end
sources: 5
calendar: 5
models:
  - id: m
    names: {a: 1}
versions:
  - effective: 2026-01-01T00:00:00Z
    periods: 7
    prices:
      m:
        standard: 5
  - effective: 2026-02-01T00:00:00Z
    prices: [3]
`,
			want: []string{
				"t.yaml:3: expected a single value, not a mapping",
				"t.yaml:5: expected a list, not `5`",
				"t.yaml:6: expected a mapping of keys to values, not `5`",
				"t.yaml:9: expected a list, not a mapping",
				"t.yaml:12: expected a list, not `7`",
				"t.yaml:15: expected a mapping of keys to values, not `5`",
				"t.yaml:17: expected a mapping of keys to values, not a list",
			},
		},
		{
			name: "provisional years that are not years, or listed twice",
			file: head + "calendar:\n  provisional: [2027, 2027, twenty, 99999]\nversions:\n  - effective: 2026-01-01T00:00:00Z\n    prices: {m: {standard: {input: 1, output: 2}}}\n",
			want: []string{
				`t.yaml:11: provisional year 2027 is listed twice`,
				`t.yaml:11: provisional year "twenty" is not a year from 1678 to 2261`,
				`t.yaml:11: provisional year "99999" is not a year from 1678 to 2261`,
			},
		},
		{
			name: "model dropped without retirement",
			file: head + `  - id: n
versions:
  - effective: 2026-01-01T00:00:00Z
    prices: {m: {standard: {input: 1, output: 2}}}
  - effective: 2026-02-01T00:00:00Z
    prices: {n: {standard: {input: 1, output: 2}}}
`,
			want: []string{`t.yaml:14: version 2026-02-01T00:00:00Z: model "m" was priced in version 2026-01-01T00:00:00Z and is neither priced nor retired here`},
		},
		{
			name: "missing output price and bad effective",
			file: head + "versions:\n  - effective: 2026-01-01\n    prices: {m: {standard: {input: 1}}}\n  - effective: 2026-02-01T00:00:00Z\n    prices: {m: {standard: {input: 1}}}\n",
			want: []string{
				`t.yaml:11: effective "2026-01-01" is not an RFC 3339 instant with offset (e.g. 2026-08-16T16:00:00Z)`,
				`t.yaml:12: version 2026-01-01: model "m" period "standard": output price is required`,
				`t.yaml:14: version 2026-02-01T00:00:00Z: model "m" period "standard": output price is required`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkParseProblems(t, tt.file, tt.want)
		})
	}
}

func TestCatalogProblemsAcrossFiles(t *testing.T) {
	a, _ := Parse("a.yaml", []byte(head+"versions:\n  - effective: 2026-01-01T00:00:00Z\n    prices: {m: {standard: {input: 1, output: 2}}}\n"))
	other := strings.Replace(strings.Replace(head, "id: m", "id: n", 1), "names: [m, p/m]", "names: [p/m]", 1)
	b, ps := Parse("b.yaml", []byte("# another file\n"+other+"versions:\n  - effective: 2026-01-01T00:00:00Z\n    prices: {n: {standard: {input: 1, output: 2}}}\n"))
	if a == nil || b == nil {
		t.Fatalf("parse: %v", ps)
	}
	_, problems := New([]*Provider{a, b})
	got := problems.Error()
	for _, want := range []string{`b.yaml:2: provider "p" is also defined in a.yaml:1`, `b.yaml:10: name "p/m" is claimed by models "m" (a.yaml:8) and "n"`} {
		if !strings.Contains(got, want) {
			t.Errorf("problems lack %q:\n%s", want, got)
		}
	}
}

func TestStatusInAfterRetirement(t *testing.T) {
	cat := loadTestdata(t)
	m := cat.Model("old")
	want := []Status{Priced, Priced, Retired}
	for i, v := range m.Provider.Versions {
		if got := m.StatusIn(v); got != want[i] {
			t.Errorf("version %s: %s, want %s", v.Name, got, want[i])
		}
	}
}

func TestParseWarningStillLoads(t *testing.T) {
	p, ps := Parse("t.yaml", []byte(head+"versions:\n  - effective: 2026-01-01T00:00:30Z\n    prices: {m: {standard: {input: 1, output: 2}}}\n"))
	if p == nil || len(ps) != 1 || !ps[0].Warning {
		t.Fatalf("want a loaded provider and one warning, got %v, %v", p, ps)
	}
}

func TestEmbeddedCatalogIsValid(t *testing.T) {
	cat, ps := Load("")
	if len(ps) > 0 {
		t.Fatalf("embedded catalog has problems:\n%v", ps)
	}
	for _, name := range []string{"deepseek-flash", "deepseek/deepseek-v4-flash", "deepseek-v4-pro"} {
		if _, ok := cat.Resolve(name); !ok {
			t.Errorf("embedded catalog does not resolve %q", name)
		}
	}
}

func FuzzParseTariff(f *testing.F) {
	for _, name := range []string{"testdata/edges.yaml", "testdata/dst.yaml"} {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(head))
	f.Add([]byte("versions: [{effective: x, periods: [{name: a, windows: ['25:00-01:00']}]}]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, ps := Parse("f.yaml", data)
		for _, pr := range ps {
			if pr.File != "f.yaml" || pr.Msg == "" {
				t.Fatalf("problem without a location or message: %#v", pr)
			}
		}
		if p == nil && len(ps.Errors()) == 0 {
			t.Fatal("no provider and no error")
		}
	})
}

// checkParseProblems parses file as t.yaml and reports unless the problems,
// in order, are want.
func checkParseProblems(t *testing.T, file string, want []string) {
	t.Helper()
	_, ps := Parse("t.yaml", []byte(file))
	var got []string
	for _, p := range ps {
		got = append(got, p.Error())
	}
	if !slices.Equal(got, want) {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
