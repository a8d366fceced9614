package cli

import (
	"runtime/debug"
	"testing"
)

func TestDescribeBuild(t *testing.T) {
	vcs := func(kv ...string) []debug.BuildSetting {
		var out []debug.BuildSetting
		for i := 0; i+1 < len(kv); i += 2 {
			out = append(out, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return out
	}
	tests := []struct {
		name string
		info *debug.BuildInfo
		want string
	}{
		{"no build information", nil, "(devel)"},
		{"a tagged release from a clean tree", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.0"},
			Settings: vcs("vcs", "git", "vcs.revision", "40d2fe7a", "vcs.time", "2026-11-30T12:00:00Z", "vcs.modified", "false")},
			"v1.2.0, revision 40d2fe7a, 2026-11-30T12:00:00Z, built with go1.26.8"},
		{"a work tree with changes", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.1-0.20261130120000-40d2fe7a+dirty"},
			Settings: vcs("vcs.revision", "40d2fe7a", "vcs.time", "2026-11-30T12:00:00Z", "vcs.modified", "true")},
			"v1.2.1-0.20261130120000-40d2fe7a+dirty, revision 40d2fe7a, 2026-11-30T12:00:00Z, modified, built with go1.26.8"},
		{"built without VCS stamping", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}},
			"(devel), built with go1.26.8"},
		{"no main module version", &debug.BuildInfo{}, "(devel)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := describeBuild(tt.info); got != tt.want {
				t.Errorf("describeBuild = %q, want %q", got, tt.want)
			}
		})
	}
}
