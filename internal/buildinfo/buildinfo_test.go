package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestDescribe(t *testing.T) {
	vcs := func(kv ...string) []debug.BuildSetting {
		var out []debug.BuildSetting
		for i := 0; i+1 < len(kv); i += 2 {
			out = append(out, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return out
	}
	release := Build{Version: "v1.2.0", Commit: "40d2fe7a0c6e", Date: "2026-11-30T12:00:00Z"}
	tests := []struct {
		name    string
		info    *debug.BuildInfo
		stamped Build
		want    string
	}{
		{"no build information", nil, Build{}, "(devel)"},
		{"a tagged module from a clean tree", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.0"},
			Settings: vcs("vcs", "git", "vcs.revision", "40d2fe7a", "vcs.time", "2026-11-30T12:00:00Z", "vcs.modified", "false")}, Build{},
			"v1.2.0, commit 40d2fe7a, 2026-11-30T12:00:00Z, built with go1.26.8"},
		{"a work tree with changes", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.1-0.20261130120000-40d2fe7a+dirty"},
			Settings: vcs("vcs.revision", "40d2fe7a", "vcs.time", "2026-11-30T12:00:00Z", "vcs.modified", "true")}, Build{},
			"v1.2.1-0.20261130120000-40d2fe7a+dirty, commit 40d2fe7a, 2026-11-30T12:00:00Z, modified, built with go1.26.8"},
		{"go install of a release: no VCS stamping", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.0"}}, Build{},
			"v1.2.0, built with go1.26.8"},
		{"built without VCS stamping", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}}, Build{},
			"(devel), built with go1.26.8"},
		{"no main module version", &debug.BuildInfo{}, Build{}, "(devel)"},
		{"a release build: the stamps replace Go's record", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"},
			Settings: vcs("vcs.revision", "ffff", "vcs.time", "2026-01-01T00:00:00Z")}, release,
			"v1.2.0, commit 40d2fe7a0c6e, 2026-11-30T12:00:00Z, built with go1.26.8"},
		{"a release build without build information", nil, release,
			"v1.2.0, commit 40d2fe7a0c6e, 2026-11-30T12:00:00Z"},
		{"only the version stamped: Go's commit kept", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"},
			Settings: vcs("vcs.revision", "abc1", "vcs.time", "2026-11-29T08:00:00Z", "vcs.modified", "true")}, Build{Version: "v0.9.0"},
			"v0.9.0, commit abc1, 2026-11-29T08:00:00Z, modified"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := describe(tt.info, tt.stamped).String(); got != tt.want {
				t.Errorf("describe = %q, want %q", got, tt.want)
			}
		})
	}
}
