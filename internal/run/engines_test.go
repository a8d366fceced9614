package run_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// pricingPath is the import path of the package whose engines are made.
const pricingPath = "github.com/tokenfare/tokenfare/pricing"

// mayBuildEngines are the folders (from the module's root) whose code may
// call pricing.New, each with why: every engine priced from sources (or
// a state's sums) is the run's to build.
var mayBuildEngines = map[string]string{
	"internal/run": "the run: the one way from sources to an engine",
	"pricing":      "the engine's own package: a month builds its blend engine beside the month's (month.go)",
}

// TestEnginesOnlyInRun reads every Go file of the module but tests and
// fails for each reference to pricing.New (a call, or the function as a
// value) outside the folders of mayBuildEngines.
func TestEnginesOnlyInRun(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return skipDir(d.Name())
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		for _, at := range engineBuilds(t, path) {
			found++
			if _, ok := mayBuildEngines[filepath.ToSlash(filepath.Dir(rel))]; !ok {
				t.Errorf("%s:%d: pricing.New outside internal/run: build the engine in a run (or name the folder in mayBuildEngines, with why)", rel, at)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found == 0 {
		t.Fatal("no pricing.New found at all: the test reads no code")
	}
}

// skipDir skips the folders that hold no code of the module's.
func skipDir(name string) error {
	if name == "testdata" || name == "node_modules" || (strings.HasPrefix(name, ".") && name != ".") {
		return filepath.SkipDir
	}
	return nil
}

// engineBuilds returns the lines of the file at path that refer to
// pricing.New: through the name the file imports pricing under, or New
// itself in package pricing.
func engineBuilds(t *testing.T, path string) []int {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	name := importName(f)
	var lines []int
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if x, ok := n.X.(*ast.Ident); ok && name != "" && x.Name == name && n.Sel.Name == "New" {
				lines = append(lines, fset.Position(n.Pos()).Line)
			}
		case *ast.CallExpr:
			if id, ok := n.Fun.(*ast.Ident); ok && f.Name.Name == "pricing" && id.Name == "New" {
				lines = append(lines, fset.Position(n.Pos()).Line)
			}
		}
		return true
	})
	return lines
}

// importName is the name f refers to package pricing by, "" when it does
// not import it.
func importName(f *ast.File) string {
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == pricingPath {
			if imp.Name != nil {
				return imp.Name.Name
			}
			return "pricing"
		}
	}
	return ""
}
