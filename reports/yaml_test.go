package reports

import "testing"

// TestYAML11NotString checks which plain scalars a YAML 1.1 reader would
// misread, and that ordinary names stay plain.
func TestYAML11NotString(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"yes", true}, {"YES", true}, {"yEs", true}, {"n", true}, {"off", true}, {"TRUE", true},
		{"~", true}, {"null", true}, {"", true},
		{"1_000", true}, {"0x1F", true}, {"0o17", true}, {"017", true}, {"0b11", true}, {"-12", true},
		{"1:20", true}, {"190:20:30.15", true}, {"1.5", true}, {".5", true}, {"1e5", true}, {".inf", true}, {"-.INF", true}, {".NaN", true},
		{"2026-10-01", true}, {"2026-10-01T03:00:00Z", true}, {"2026-1-1 3:00:00 +08", true}, {"<<", true}, {"=", true},
		{"deepseek-flash", false}, {"team-a", false}, {"1.2.3", false}, {"yesterday", false}, {"no-reply", false},
		{"gpt-4o", false}, {"sk-abc", false}, {"1:2:x", false}, {"2026-10", false}, {"0x", false}, {"v1", false},
	}
	for _, tt := range tests {
		if got := yaml11NotString(tt.in); got != tt.want {
			t.Errorf("yaml11NotString(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
