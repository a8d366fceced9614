package tariffs

import (
	"slices"
	"strings"
	"testing"
)

// sourcesHead is a file preamble with two sources of different kinds; the
// cases replace its sources and append versions.
const sourcesHead = `provider: p
currency: USD
timezone: UTC
billing_time: end
sources:
  - {url: https://p.example/pricing, kind: official, checked: 2026-11-30}
  - {url: https://blog.example/p, kind: secondary, checked: 2026-11-30}
models:
  - id: m
calendar:
  holidays:
    - {date: 2026-12-25, source: https://p.example/pricing}
versions:
`

func TestSourceKindProblems(t *testing.T) {
	tests := []struct {
		name string
		file string
		want []string // every problem, in order of line
	}{
		{
			name: "every source listed with a kind",
			file: sourcesHead + "  - effective: 2026-01-01T00:00:00Z\n    source: https://blog.example/p\n    prices: {m: {standard: {input: 1, output: 2}}}\n",
		},
		{
			name: "an unknown kind is an error at its line",
			file: strings.Replace(sourcesHead, "kind: secondary", "kind: blog", 1) + "  - effective: 2026-01-01T00:00:00Z\n    prices: {m: {standard: {input: 1, output: 2}}}\n",
			want: []string{`t.yaml:7: source kind "blog" is not one of official, changelog, secondary`},
		},
		{
			name: "unstated is not a kind a file may write",
			file: strings.Replace(sourcesHead, "kind: secondary", "kind: unstated", 1) + "  - effective: 2026-01-01T00:00:00Z\n    prices: {m: {standard: {input: 1, output: 2}}}\n",
			want: []string{`t.yaml:7: source kind "unstated" is not one of official, changelog, secondary`},
		},
		{
			name: "a missing kind is a warning",
			file: strings.Replace(sourcesHead, "kind: secondary, ", "", 1) + "  - effective: 2026-01-01T00:00:00Z\n    prices: {m: {standard: {input: 1, output: 2}}}\n",
			want: []string{`t.yaml:7: warning: source https://blog.example/p has no kind (official, changelog or secondary): reports show it as unstated`},
		},
		{
			name: "a version source that sources does not list is a warning",
			file: sourcesHead + "  - effective: 2026-01-01T00:00:00Z\n    source: https://elsewhere.example/\n    prices: {m: {standard: {input: 1, output: 2}}}\n",
			want: []string{`t.yaml:15: warning: version 2026-01-01T00:00:00Z: source https://elsewhere.example/ is not listed under sources, so its kind is unknown`},
		},
		{
			name: "a calendar source that sources does not list is a warning",
			file: strings.Replace(sourcesHead, "source: https://p.example/pricing}", "source: https://gov.example/}", 1) + "  - effective: 2026-01-01T00:00:00Z\n    prices: {m: {standard: {input: 1, output: 2}}}\n",
			want: []string{`t.yaml:12: warning: calendar 2026-12-25: source https://gov.example/ is not listed under sources, so its kind is unknown`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkParseProblems(t, tt.file, tt.want)
		})
	}
}

// TestVersionBasis checks the kind each version's rates rest on: its own
// source's, else the weakest of the file's.
func TestVersionBasis(t *testing.T) {
	versions := `  - effective: 2026-01-01T00:00:00Z
    name: own-official
    source: https://p.example/pricing
    prices: {m: {standard: {input: 1, output: 2}}}
  - effective: 2026-02-01T00:00:00Z
    name: no-source
    prices: {m: {standard: {input: 1, output: 2}}}
  - effective: 2026-03-01T00:00:00Z
    name: own-secondary
    source: https://blog.example/p
    prices: {m: {standard: {input: 1, output: 2}}}
`
	tests := []struct {
		name    string
		sources string
		want    []SourceKind
	}{
		{"official and secondary sources", "", []SourceKind{SourceOfficial, SourceSecondary, SourceSecondary}},
		{"a changelog is weaker than an official page", "kind: changelog, checked: 2026-11-30", []SourceKind{SourceOfficial, SourceChangelog, SourceChangelog}},
		{"an unstated source is the weakest", "checked: 2026-11-30", []SourceKind{SourceOfficial, SourceUnstated, SourceUnstated}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := sourcesHead
			if tt.sources != "" {
				file = strings.Replace(file, "kind: secondary, checked: 2026-11-30", tt.sources, 1)
			}
			p, ps := Parse("t.yaml", []byte(file+versions))
			if p == nil {
				t.Fatalf("parse: %v", ps)
			}
			var got []SourceKind
			for _, v := range p.Versions {
				got = append(got, v.Basis)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("bases = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestEmbeddedSourcesHaveKinds: every source of the embedded catalog has a
// kind, and every rate rests on a known one.
func TestEmbeddedSourcesHaveKinds(t *testing.T) {
	cat, ps := Load("")
	if cat == nil {
		t.Fatalf("load: %v", ps)
	}
	for _, p := range cat.Providers {
		for _, s := range p.Sources {
			if s.Kind == SourceUnstated {
				t.Errorf("%s: source %s has no kind", p.File, s.URL)
			}
		}
		for _, v := range p.Versions {
			if v.Basis == SourceUnstated {
				t.Errorf("%s: version %s rests on no known kind of source", p.File, v.Name)
			}
		}
	}
}
