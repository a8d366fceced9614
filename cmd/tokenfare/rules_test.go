package main

import (
	"go/ast"
	"strconv"
	"strings"
	"testing"
)

// The module's rules on where things may be done, read from its code
// (moduleFiles): each test fails on a file that breaks its rule, and when
// it finds nothing of what it looks for at all (then it reads no code).

// maySyscall are the folders whose code may import syscall besides
// internal/platform, each with why: none asks the system for a lock, a
// process, a limit or a file's owner.
var maySyscall = map[string]string{
	"internal/platform": "the one place that asks the operating system for what os does not give",
	"internal/cli":      "the signals a command stops or reloads on (SIGTERM, SIGPIPE, SIGHUP) and EPIPE",
	"ledger/postgres":   "the errors that say a connection was lost (ECONNRESET and the like), to retry",
}

// TestSyscallOnlyInPlatform fails for each syscall import outside the
// folders of maySyscall.
func TestSyscallOnlyInPlatform(t *testing.T) {
	found := 0
	for _, f := range moduleFiles(t) {
		if importName(f.ast, "syscall") == "" {
			continue
		}
		found++
		if _, ok := maySyscall[f.pkg]; !ok {
			t.Errorf("%s imports syscall: ask the system through internal/platform (or name the folder in maySyscall, with why)", f.path)
		}
	}
	if found == 0 {
		t.Fatal("no syscall import found at all: the test reads no code")
	}
}

// mayBuildEngines are the folders whose code may call pricing.New, each
// with why: every engine priced from sources (or a state's sums) is the
// run's to build.
var mayBuildEngines = map[string]string{
	"internal/run": "the run: the one way from sources to an engine",
	"pricing":      "the engine's own package: a month builds its blend engine beside the month's (month.go)",
}

// TestEnginesOnlyInRun fails for each reference to pricing.New (a call,
// or the function as a value) outside the folders of mayBuildEngines.
func TestEnginesOnlyInRun(t *testing.T) {
	found := 0
	for _, f := range moduleFiles(t) {
		for _, at := range engineBuilds(f) {
			found++
			if _, ok := mayBuildEngines[f.pkg]; !ok {
				t.Errorf("%s:%d: pricing.New outside internal/run: build the engine in a run (or name the folder in mayBuildEngines, with why)", f.path, at)
			}
		}
	}
	if found == 0 {
		t.Fatal("no pricing.New found at all: the test reads no code")
	}
}

// engineBuilds returns the lines of f that refer to pricing.New: through
// the name f imports pricing under, or New itself in package pricing.
func engineBuilds(f goFile) []int {
	name := importName(f.ast, "github.com/tokenfare/tokenfare/pricing")
	var lines []int
	ast.Inspect(f.ast, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if x, ok := n.X.(*ast.Ident); ok && name != "" && x.Name == name && n.Sel.Name == "New" {
				lines = append(lines, f.fset.Position(n.Pos()).Line)
			}
		case *ast.CallExpr:
			if id, ok := n.Fun.(*ast.Ident); ok && f.ast.Name.Name == "pricing" && id.Name == "New" {
				lines = append(lines, f.fset.Position(n.Pos()).Line)
			}
		}
		return true
	})
	return lines
}

// importName is the name f refers to the package of import path p by,
// "" when it does not import it.
func importName(f *ast.File, p string) string {
	for _, imp := range f.Imports {
		if path, _ := strconv.Unquote(imp.Path.Value); path == p {
			if imp.Name != nil {
				return imp.Name.Name
			}
			return path[strings.LastIndexByte(path, '/')+1:]
		}
	}
	return ""
}
