package tariffs

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestLoadOverlays lays files over a base folder: a provider an overlay
// defines replaces the one of its name in place, a new one comes last, and
// a later overlay wins over an earlier one.
func TestLoadOverlays(t *testing.T) {
	dir := t.TempDir()
	// file writes a one-model provider file and returns its path.
	file := func(name, provider, model string) string {
		body := strings.NewReplacer("provider: p", "provider: "+provider, "id: m", "id: "+model, "names: [m, p/m]", "names: ["+model+"]").Replace(head) +
			"versions:\n  - effective: 2026-01-01T00:00:00Z\n    prices: {" + model + ": {standard: {input: 1, output: 2}}}\n"
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	base := filepath.Dir(file("base/a.yaml", "a", "a1"))
	file("base/b.yaml", "b", "b1")
	file("base/c.yaml", "c", "c1")
	b2 := file("over1/b.yaml", "b", "b2")
	d1 := file("over1/d.yaml", "d", "d1")
	b3 := file("over2/b.yaml", "b", "b3")

	abc := []string{"base/a.yaml", "base/b.yaml", "base/c.yaml"}
	tests := []struct {
		name     string
		overlays []string
		want     []string // provider/model in catalog order
		files    []string // read, under dir: replaced ones too
	}{
		{"no overlay", nil, []string{"a/a1", "b/b1", "c/c1"}, abc},
		{"a file replaces its provider in place", []string{b2}, []string{"a/a1", "b/b2", "c/c1"}, append(abc, "over1/b.yaml")},
		{"a new provider comes last", []string{d1}, []string{"a/a1", "b/b1", "c/c1", "d/d1"}, append(abc, "over1/d.yaml")},
		{"a folder overlays each of its files", []string{filepath.Dir(b2)}, []string{"a/a1", "b/b2", "c/c1", "d/d1"}, append(abc, "over1/b.yaml", "over1/d.yaml")},
		{"the later overlay wins", []string{filepath.Dir(b2), b3}, []string{"a/a1", "b/b3", "c/c1", "d/d1"}, append(abc, "over1/b.yaml", "over1/d.yaml", "over2/b.yaml")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cat, ps := Load(base, tt.overlays...)
			if cat == nil || len(ps) > 0 {
				t.Fatalf("load: %v", ps)
			}
			var got []string
			for _, m := range cat.Models() {
				got = append(got, m.Provider.Name+"/"+m.ID)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("models = %v, want %v", got, tt.want)
			}
			var files []string
			for _, f := range tt.files {
				files = append(files, filepath.Join(dir, f))
			}
			if !slices.Equal(cat.Files, files) {
				t.Errorf("files = %v, want %v", cat.Files, files)
			}
		})
	}

	// Two files of one overlay folder defining one provider is an error.
	file("over3/b.yaml", "b", "b4")
	file("over3/b-again.yaml", "b", "b5")
	if _, ps := Load(base, filepath.Join(dir, "over3")); !strings.Contains(ps.Error(), `b.yaml:1: provider "b" is also defined in `+filepath.Join(dir, "over3", "b-again.yaml")+":1") {
		t.Errorf("want the repeated provider reported, got %v", ps)
	}
}
