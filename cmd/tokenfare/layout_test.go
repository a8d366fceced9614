package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestReadmeLayoutListsEveryPackage: the README's Layout table has one row
// for every Go package of the module, and no row for a package that is
// gone.
func TestReadmeLayoutListsEveryPackage(t *testing.T) {
	var packages []string
	for _, f := range moduleFiles(t) {
		packages = append(packages, f.pkg)
	}
	slices.Sort(packages)
	packages = slices.Compact(packages)

	readme, err := os.ReadFile(filepath.Join(moduleRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, layout, ok := strings.Cut(string(readme), "\n## Layout\n")
	if !ok {
		t.Fatal("README.md has no Layout section")
	}
	layout, _, _ = strings.Cut(layout, "\n## ")
	row := regexp.MustCompile("(?m)^\\| `([^`]+)` \\|")
	var listed []string
	for _, m := range row.FindAllStringSubmatch(layout, -1) {
		listed = append(listed, strings.TrimSuffix(m[1], "/"))
	}

	for _, p := range packages {
		if !slices.Contains(listed, p) {
			t.Errorf("README.md's Layout table has no row for package %s", p)
		}
	}
	for _, l := range listed {
		if !slices.Contains(packages, l) {
			t.Errorf("README.md's Layout table lists %s, which is not a package", l)
		}
	}
	if len(packages) < 10 {
		t.Errorf("found %d packages under %s, want the module's (%v)", len(packages), moduleRoot, packages)
	}
}
