package metrics

import "testing"

func TestLabelValue(t *testing.T) {
	tests := []struct {
		name, in, want string
		ok             bool
	}{
		{name: "ascii", in: "search-prod", want: "search-prod", ok: true},
		{name: "valid UTF-8 kept", in: "café", want: "café", ok: true},
		{name: "Latin-1 é", in: "caf\xe9", want: `caf\xe9`},
		{name: "two bytes apart", in: "\xe9t\xe9", want: `\xe9t\xe9`},
		{name: "a cut rune", in: "ab\xc3", want: `ab\xc3`},
		{name: "valid beside invalid", in: "é\xff", want: `é\xff`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := labelValue(tt.in)
			if got != tt.want || ok != tt.ok {
				t.Errorf("labelValue(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
			}
		})
	}
}
