package pricing_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/tokenfare/tokenfare"

// edges are what the domain must not import, by import path ("/..." also
// matches the packages below): data flows from the edges to pricing and
// from pricing to the renderers, never back (DESIGN.md, README's Layout).
var edges = []struct{ pattern, what string }{
	{module + "/provider", "readers of the providers' export files"},
	{module + "/gateway/...", "gateway configs"},
	{module + "/ledger/postgres", "the PostgreSQL reader"},
	{module + "/reports/...", "the renderers"},
	{module + "/internal/cli/...", "the command layer"},
	{module + "/internal/run/...", "the run"},
	{module + "/tariffs/drift", "readers of other price tables"},
	{module + "/internal/pgtest", "test servers"},
	{module + "/internal/hostile", "the attack corpus"},
	{module + "/cmd/...", "commands"},
	{module + "/bench/...", "benchmark programs"},
	{module + "/testdata/...", "fixture generators"},
	{"github.com/jackc/pgx/...", "a database driver"},
	{"github.com/spf13/cobra", "the command line"},
	{"github.com/xuri/excelize/...", "a spreadsheet writer"},
}

// edgeOf says what edge package path is, or "" when it is none.
func edgeOf(path string) string {
	for _, e := range edges {
		if matches(e.pattern, path) {
			return e.what
		}
	}
	return ""
}

// short names a package of the module by its folder.
func short(path string) string {
	if rel, ok := strings.CutPrefix(path, module+"/"); ok {
		return rel
	}
	return path
}

// listed is a package as go list -json prints it.
type listed struct {
	ImportPath string
	Imports    []string
	DepOnly    bool
}

// edgeChains walks the import graph from each root (a package not DepOnly)
// and returns, for every edge package reached, the shortest chain of
// imports from a root to it and what the edge is, as "a → b → c (what)",
// packages of the module named by their folder. The walk does not go past an
// edge package: the first one on a path is the offence.
func edgeChains(pkgs []listed) []string {
	imports := map[string][]string{}
	for _, p := range pkgs {
		imports[p.ImportPath] = p.Imports
	}
	var out []string
	seen := map[string]bool{}
	for _, root := range pkgs {
		if root.DepOnly {
			continue
		}
		prev := map[string]string{root.ImportPath: ""}
		queue := []string{root.ImportPath}
		for len(queue) > 0 {
			at := queue[0]
			queue = queue[1:]
			if edge := edgeOf(at); edge != "" {
				chain := []string{short(at)}
				for p := prev[at]; p != ""; p = prev[p] {
					chain = append(chain, short(p))
				}
				slices.Reverse(chain)
				if line := strings.Join(chain, " → ") + " (" + edge + ")"; !seen[line] {
					seen[line] = true
					out = append(out, line)
				}
				continue
			}
			for _, next := range imports[at] {
				if _, ok := prev[next]; !ok {
					prev[next] = at
					queue = append(queue, next)
				}
			}
		}
	}
	return out
}

// goList runs go list -deps -json on patterns: the packages and every
// package they import, test files left out.
func goList(t *testing.T, patterns ...string) []listed {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH to list the import graph with")
	}
	cmd := exec.Command(goBin, append([]string{"list", "-deps", "-json=ImportPath,Imports,DepOnly"}, patterns...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []listed
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listed
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// TestImportsNoEdge: pricing, the packages below it (pricing/threeway),
// failures (a domain observer beside it) and everything they import leave out every edge package, so the domain can
// be read, tested and reused without a file format, a driver or a
// renderer.
func TestImportsNoEdge(t *testing.T) {
	pkgs := goList(t, module+"/pricing/...", module+"/failures")
	roots := 0
	for _, p := range pkgs {
		if !p.DepOnly {
			roots++
		}
	}
	if roots < 3 {
		t.Errorf("go list found %d root packages, want pricing, pricing/threeway and failures at least", roots)
	}
	for _, chain := range edgeChains(pkgs) {
		t.Errorf("the domain imports an edge package: %s", chain)
	}
}

// TestEdgeChains checks the walk on small graphs.
func TestEdgeChains(t *testing.T) {
	const p, tw, l, pv = module + "/pricing", module + "/pricing/threeway", module + "/ledger", module + "/provider"
	tests := []struct {
		name string
		pkgs []listed
		want []string
	}{
		{"clean", []listed{{ImportPath: p, Imports: []string{l, "fmt"}}, {ImportPath: l, DepOnly: true}, {ImportPath: "fmt", DepOnly: true}}, nil},
		{"direct", []listed{{ImportPath: p, Imports: []string{pv}}, {ImportPath: pv, DepOnly: true}},
			[]string{"pricing → provider (readers of the providers' export files)"}},
		{"through a domain package, from each root", []listed{
			{ImportPath: p, Imports: []string{l}}, {ImportPath: tw, Imports: []string{p}},
			{ImportPath: l, Imports: []string{module + "/ledger/postgres"}, DepOnly: true},
			{ImportPath: module + "/ledger/postgres", Imports: []string{"github.com/jackc/pgx/v5"}, DepOnly: true},
			{ImportPath: "github.com/jackc/pgx/v5", DepOnly: true}},
			[]string{"pricing → ledger → ledger/postgres (the PostgreSQL reader)",
				"pricing/threeway → pricing → ledger → ledger/postgres (the PostgreSQL reader)"}},
		{"a driver outside the module", []listed{{ImportPath: p, Imports: []string{"github.com/jackc/pgx/v5/pgconn"}},
			{ImportPath: "github.com/jackc/pgx/v5/pgconn", DepOnly: true}},
			[]string{"pricing → github.com/jackc/pgx/v5/pgconn (a database driver)"}},
		{"a subtree pattern, not a prefix of a name", []listed{{ImportPath: p, Imports: []string{module + "/reports/xlsx", module + "/reportsfoo"}},
			{ImportPath: module + "/reports/xlsx", DepOnly: true}, {ImportPath: module + "/reportsfoo", DepOnly: true}},
			[]string{"pricing → reports/xlsx (the renderers)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := edgeChains(tt.pkgs); !slices.Equal(got, tt.want) {
				t.Errorf("edgeChains =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// noIO lists, for each domain package, the packages it may not import
// itself ("/..." also matches the packages below): the file system,
// processes and system calls, and file formats belong to the edges, which
// hand the domain what it needs through interfaces it declares (a
// RunStore for the runs of an engine that spills, a BudgetPlan read by
// internal/budgets). Only the package's own imports count: a domain
// package may import another that reads files (ledger, tariffs).
var noIO = map[string][]string{
	"pricing":          ioImports,
	"pricing/threeway": ioImports,
	"pricing/savings":  ioImports,
	"failures":         ioImports,
	"internal/extsort": ioImports, // the spill's external sort: its runs are a RunStore's
}

// ioImports are the packages that do I/O or read a file format.
var ioImports = []string{
	"os/...",               // files, folders, processes, the environment
	"syscall",              // processes and limits
	"golang.org/x/sys/...", // the same, outside the standard library
	"path/filepath",        // paths of the host's file system
	"io/fs",                // file systems
	"io/ioutil",            // os's file functions under older names
	"gopkg.in/yaml.v2",     // YAML
	"gopkg.in/yaml.v3",
	"sigs.k8s.io/yaml",
	"github.com/goccy/go-yaml",
}

// matches reports whether path is pattern or, for a pattern ending in
// "/...", a package at or below it.
func matches(pattern, path string) bool {
	p, sub := strings.CutSuffix(pattern, "/...")
	return path == p || sub && strings.HasPrefix(path, p+"/")
}

// ioOffences returns, for each root package (not DepOnly) of the module,
// the imports noIO forbids it, as "pricing imports os", and a line for a
// root noIO has no list for.
func ioOffences(pkgs []listed) []string {
	var out []string
	for _, p := range pkgs {
		if p.DepOnly {
			continue
		}
		name := short(p.ImportPath)
		banned, ok := noIO[name]
		if !ok {
			out = append(out, name+" has no list of what it may not import (noIO)")
			continue
		}
		for _, imp := range p.Imports {
			if slices.ContainsFunc(banned, func(b string) bool { return matches(b, imp) }) {
				out = append(out, name+" imports "+imp)
			}
		}
	}
	return out
}

// TestImportsNoIO: pricing, pricing/threeway, failures and the external
// sort pricing spills through open no file, make no folder, probe no
// process and parse no YAML themselves.
func TestImportsNoIO(t *testing.T) {
	for _, line := range ioOffences(goList(t, module+"/pricing/...", module+"/failures", module+"/internal/extsort")) {
		t.Errorf("the domain does I/O: %s", line)
	}
}

// TestIOOffences checks the check on small lists.
func TestIOOffences(t *testing.T) {
	const p, f = module + "/pricing", module + "/failures"
	tests := []struct {
		name string
		pkgs []listed
		want []string
	}{
		{"clean", []listed{{ImportPath: p, Imports: []string{"io", "bufio", "fmt", module + "/ledger"}},
			{ImportPath: module + "/ledger", Imports: []string{"os"}, DepOnly: true}}, nil},
		{"the standard library's I/O", []listed{{ImportPath: p, Imports: []string{"os", "path/filepath", "syscall", "io/fs"}},
			{ImportPath: f, Imports: []string{"os/exec", "io/ioutil"}}},
			[]string{"pricing imports os", "pricing imports path/filepath", "pricing imports syscall", "pricing imports io/fs",
				"failures imports os/exec", "failures imports io/ioutil"}},
		{"a YAML library", []listed{{ImportPath: p, Imports: []string{"gopkg.in/yaml.v3"}}},
			[]string{"pricing imports gopkg.in/yaml.v3"}},
		{"a pattern's own package and below, not a prefix of a name", []listed{{ImportPath: p,
			Imports: []string{"golang.org/x/sys", "golang.org/x/sys/unix", "golang.org/x/system", "osx"}}},
			[]string{"pricing imports golang.org/x/sys", "pricing imports golang.org/x/sys/unix"}},
		{"a domain package with no list", []listed{{ImportPath: module + "/pricing/forecast", Imports: []string{"fmt"}}},
			[]string{"pricing/forecast has no list of what it may not import (noIO)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ioOffences(tt.pkgs); !slices.Equal(got, tt.want) {
				t.Errorf("ioOffences =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}
