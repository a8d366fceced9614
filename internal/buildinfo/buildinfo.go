// Package buildinfo says which build of tokenfare is running. A release
// build stamps its version, commit and commit date in with the linker
// (-ldflags "-X github.com/tokenfare/tokenfare/internal/buildinfo.version=v1.2.0",
// as .goreleaser.yaml does); a build without them (go install, go build in a
// work tree) is described by what Go recorded in the binary: the module
// version, and the VCS revision, its time and whether the tree was modified
// when the build stamped them.
//
// # Invariants
//
// A stamped value always wins over what Go recorded; a part known to
// neither is left out of the description, never guessed.
package buildinfo

import (
	"runtime/debug"
	"strings"
)

// Set by the linker in release builds; empty otherwise.
var (
	version string // the release's tag, e.g. v1.2.0
	commit  string // the full commit hash it was built from
	date    string // the commit's time, RFC 3339
)

// Build describes one binary.
type Build struct {
	Version   string // "(devel)" when neither the linker nor Go recorded one
	Commit    string // "" when unknown
	Date      string // the commit's time; "" when unknown
	Modified  bool   // built from a work tree with uncommitted changes
	GoVersion string // the Go release it was built with; "" when unknown
}

// Read describes the running binary.
func Read() Build {
	info, _ := debug.ReadBuildInfo()
	return describe(info, Build{Version: version, Commit: commit, Date: date})
}

// describe combines Go's build information with the linker's stamps, the
// stamps winning part by part.
func describe(info *debug.BuildInfo, stamped Build) Build {
	var b Build
	if info != nil {
		b.Version = info.Main.Version
		b.GoVersion = info.GoVersion
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				b.Commit = s.Value
			case "vcs.time":
				b.Date = s.Value
			case "vcs.modified":
				b.Modified = s.Value == "true"
			}
		}
	}
	if stamped.Version != "" {
		b.Version = stamped.Version
	}
	if stamped.Commit != "" {
		b.Commit = stamped.Commit
	}
	if stamped.Date != "" {
		b.Date = stamped.Date
	}
	if b.Version == "" {
		b.Version = "(devel)"
	}
	return b
}

// String gives the build on one line, "VERSION, commit HASH, DATE,
// modified, built with GOVERSION", leaving out the parts not known.
func (b Build) String() string {
	parts := []string{b.Version}
	if b.Commit != "" {
		parts = append(parts, "commit "+b.Commit)
	}
	if b.Date != "" {
		parts = append(parts, b.Date)
	}
	if b.Modified {
		parts = append(parts, "modified")
	}
	if b.GoVersion != "" {
		parts = append(parts, "built with "+b.GoVersion)
	}
	return strings.Join(parts, ", ")
}
