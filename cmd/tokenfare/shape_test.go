package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the README's Shape section from the code")

// The README's Shape section lies between these two lines.
const (
	shapeBegin = "<!-- shape: begin; written by go test ./cmd/tokenfare -run TestShape -update -->"
	shapeEnd   = "<!-- shape: end -->"
)

// module is the module's import path; moduleRoot its folder, from here.
const (
	module     = "github.com/tokenfare/tokenfare"
	moduleRoot = "../.."
)

// sizedPackages are the packages whose lines the section gives.
var sizedPackages = []string{"pricing", "internal/cli"}

// longest is how many of the longest functions the section lists.
const longest = 10

// slack is how far a figure of the section may drift from the code before
// TestShape fails: 3% of it, at least one.
func slack(n float64) float64 { return max(1, math.Ceil(n*0.03)) }

// goFile is one non-test Go file of the module, parsed.
type goFile struct {
	pkg   string // its folder, from the module's root
	path  string // from the module's root
	lines int
	ast   *ast.File
	fset  *token.FileSet
}

// moduleFiles parses every non-test Go file of the module, in the folders
// go list ./... reads.
func moduleFiles(t *testing.T) []goFile {
	t.Helper()
	var files []goFile
	err := filepath.WalkDir(moduleRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != moduleRoot && (name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parseFile(path)
		files = append(files, f)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func parseFile(path string) (goFile, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return goFile{}, err
	}
	rel, _ := filepath.Rel(moduleRoot, path)
	rel = filepath.ToSlash(rel)
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
	return goFile{pkg: pathDir(rel), path: rel, lines: strings.Count(string(src), "\n"), ast: f, fset: fset}, err
}

func pathDir(rel string) string {
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		return rel[:i]
	}
	return "."
}

// funcLen is one function or method and its lines, from func to its
// closing brace.
type funcLen struct {
	name, file string
	lines      int
}

// funcLens lists every function declared in files, longest first (then
// by name, so the order is the same on every run).
func funcLens(files []goFile) []funcLen {
	var out []funcLen
	for _, f := range files {
		for _, d := range f.ast.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
				n := f.fset.Position(fd.End()).Line - f.fset.Position(fd.Pos()).Line + 1
				out = append(out, funcLen{name: f.pkg + "." + funcName(fd), file: f.path, lines: n})
			}
		}
	}
	slices.SortFunc(out, func(a, b funcLen) int {
		if a.lines != b.lines {
			return b.lines - a.lines
		}
		return strings.Compare(a.name+a.file, b.name+b.file)
	})
	return out
}

// funcName is Name, or (T).Name or (*T).Name for a method.
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	return "(" + typeName(fd.Recv.List[0].Type) + ")." + fd.Name.Name
}

func typeName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StarExpr:
		return "*" + typeName(x.X)
	case *ast.IndexExpr:
		return typeName(x.X)
	case *ast.IndexListExpr:
		return typeName(x.X)
	case *ast.Ident:
		return x.Name
	}
	return "?"
}

// notable are the outside packages the graph names, by path prefix: the
// drivers and frameworks only an edge may import.
var notable = []struct{ prefix, name string }{
	{"go.etcd.io/bbolt", "bbolt"},
	{"github.com/jackc/pgx/", "pgx"},
	{"github.com/spf13/cobra", "cobra"},
	{"github.com/xuri/excelize/", "excelize"},
	{"github.com/prometheus/client_golang/", "client_golang"},
}

// notableName is the graph's name for import path p, or "".
func notableName(p string) string {
	for _, n := range notable {
		if p == strings.TrimSuffix(n.prefix, "/") || strings.HasPrefix(p, n.prefix) {
			return n.name
		}
	}
	return ""
}

// importGraph maps each package of the module to what it imports of the
// module (by folder) and of the notable packages (by name), each sorted.
// Every file counts, whatever its build constraints.
func importGraph(files []goFile) map[string][]string {
	g := map[string][]string{}
	for _, f := range files {
		if _, ok := g[f.pkg]; !ok {
			g[f.pkg] = nil
		}
		for _, imp := range f.ast.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if rel, ok := strings.CutPrefix(p, module+"/"); ok {
				g[f.pkg] = append(g[f.pkg], rel)
			} else if n := notableName(p); n != "" {
				g[f.pkg] = append(g[f.pkg], n)
			}
		}
	}
	for p, imps := range g {
		slices.Sort(imps)
		g[p] = slices.Compact(imps)
	}
	return g
}

// An importRule says which packages may reach (import, or import
// through others) the packages of a pattern ("x/..." is x and below).
type importRule struct {
	pattern string
	what    string
	// from: the packages that may not reach it; empty: every package but
	// those of allowed.
	from    []string
	allowed []string
}

// domain are the packages at the centre: file formats of calls and
// tariffs, and the pricing of them.
var domain = []string{"ledger", "tariffs", "pricing", "pricing/threeway", "pricing/savings", "failures", "internal/extsort"}

var importRules = []importRule{
	{"internal/cli", "the command line", domain, nil},
	{"internal/serve/...", "the daemon", domain, nil},
	{"internal/run", "the run", domain, nil},
	{"internal/state", "serve's state", domain, nil},
	{"internal/metrics", "serve's metrics", domain, nil},
	{"ledger/postgres", "the PostgreSQL reader", domain, nil},
	{"provider", "the providers' export readers", domain, nil},
	{"gateway/...", "gateway configs", domain, nil},
	{"reports/...", "the renderers", domain, nil},
	{"internal/cli", "the command line", nil, []string{"cmd/tokenfare"}},
	{"bbolt", "the state's database", nil, []string{"internal/state", "internal/run", "internal/cli", "internal/metrics", "internal/serve", "cmd/tokenfare"}},
	{"pgx", "a database driver", nil, []string{"ledger/postgres", "internal/pgtest", "internal/run", "internal/cli", "cmd/tokenfare"}},
	{"cobra", "the command line's framework", nil, []string{"internal/cli", "cmd/tokenfare"}},
	{"excelize", "the workbook writer", nil, []string{"reports", "internal/cli", "cmd/tokenfare"}},
	{"client_golang", "Prometheus", nil, []string{"internal/cli", "internal/metrics", "internal/serve", "cmd/tokenfare"}},
}

// matchesPkg reports whether p is pattern or, for "x/...", x or below it.
func matchesPkg(pattern, p string) bool {
	base, sub := strings.CutSuffix(pattern, "/...")
	return p == base || sub && strings.HasPrefix(p, base+"/")
}

// reach returns, for each package reachable from root in g, the package
// it was first reached from (root's is "").
func reach(g map[string][]string, root string) map[string]string {
	prev := map[string]string{root: ""}
	queue := []string{root}
	for len(queue) > 0 {
		at := queue[0]
		queue = queue[1:]
		for _, next := range g[at] {
			if _, ok := prev[next]; !ok {
				prev[next] = at
				queue = append(queue, next)
			}
		}
	}
	return prev
}

// chain is the path of imports from the root of prev to p.
func chain(prev map[string]string, p string) string {
	var out []string
	for ; p != ""; p = prev[p] {
		out = append(out, p)
	}
	slices.Reverse(out)
	return strings.Join(out, " → ")
}

// breaches lists each package that reaches what a rule keeps it from, with
// the chain of imports that does.
func breaches(g map[string][]string, rules []importRule) []string {
	var out []string
	for _, r := range rules {
		for _, from := range sortedKeys(g) {
			bound := slices.Contains(r.from, from) || len(r.from) == 0 && !slices.Contains(r.allowed, from)
			if !bound {
				continue
			}
			prev := reach(g, from)
			for _, p := range sortedKeys(prev) {
				if p != from && matchesPkg(r.pattern, p) {
					out = append(out, fmt.Sprintf("%s (%s)", chain(prev, p), r.what))
				}
			}
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// shape is what the section says of the code.
type shape struct {
	files, lines map[string]int // by package, and "" for the module
	funcs        []funcLen
	graph        map[string][]string
}

func measure(files []goFile) shape {
	s := shape{files: map[string]int{}, lines: map[string]int{}, funcs: funcLens(files), graph: importGraph(files)}
	for _, f := range files {
		for _, p := range []string{f.pkg, ""} {
			s.files[p]++
			s.lines[p] += f.lines
		}
	}
	return s
}

// render writes the section, markers included.
func render(s shape) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", shapeBegin)
	b.WriteString("The code's size and imports, measured on the non-test Go files of every package (`go test ./cmd/tokenfare`\n" +
		"fails when a figure here is more than 3% off the code, or a name or an import differs; `-update`\n" +
		"rewrites this section, as `make golden` does).\n\n")
	b.WriteString("| package | files | lines |\n|---|--:|--:|\n")
	for _, p := range sizedPackages {
		fmt.Fprintf(&b, "| `%s` | %d | %d |\n", p, s.files[p], s.lines[p])
	}
	fmt.Fprintf(&b, "| the module | %d | %d |\n\n", s.files[""], s.lines[""])
	renderFuncs(&b, s.funcs)
	renderGraph(&b, s.graph)
	renderRules(&b)
	fmt.Fprintf(&b, "%s\n", shapeEnd)
	return b.String()
}

func renderFuncs(b *strings.Builder, fs []funcLen) {
	n := make([]int, len(fs))
	for i, f := range fs {
		n[i] = f.lines
	}
	slices.Sort(n)
	fmt.Fprintf(b, "%d functions and methods: the median is %d lines long, 9 in 10 are at most %d; the %d longest:\n\n",
		len(n), n[len(n)/2], n[len(n)*9/10], longest)
	b.WriteString("| function | file | lines |\n|---|---|--:|\n")
	for _, f := range fs[:min(longest, len(fs))] {
		fmt.Fprintf(b, "| `%s` | `%s` | %d |\n", f.name, f.file, f.lines)
	}
	b.WriteString("\n")
}

func renderGraph(b *strings.Builder, g map[string][]string) {
	b.WriteString("Each package with what it imports of the module, and of bbolt, pgx, cobra, excelize and\n" +
		"Prometheus's client_golang:\n\n```\n")
	width := 0
	for p := range g {
		width = max(width, len(p))
	}
	for _, p := range sortedKeys(g) {
		imps := "(nothing)"
		if len(g[p]) > 0 {
			imps = strings.Join(g[p], ", ")
		}
		fmt.Fprintf(b, "%-*s  %s\n", width, p, imps)
	}
	b.WriteString("```\n\n")
}

func renderRules(b *strings.Builder) {
	b.WriteString("The import rules, checked on that graph (through other packages too):\n\n")
	var kept []string
	for _, r := range importRules {
		if len(r.from) > 0 {
			kept = append(kept, r.pattern)
		}
	}
	lines := []string{fmt.Sprintf("- the domain (%s) reaches none of %s", strings.Join(domain, ", "), strings.Join(kept, ", "))}
	for _, r := range importRules {
		if len(r.from) == 0 {
			lines = append(lines, fmt.Sprintf("- only %s may reach %s (%s)", strings.Join(r.allowed, ", "), r.pattern, r.what))
		}
	}
	b.WriteString(strings.Join(lines, ";\n") + ".\n")
}

// readmeShape returns the README and its section, markers included.
func readmeShape(t *testing.T) (readme, section string) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(moduleRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme = string(src)
	i, j := strings.Index(readme, shapeBegin), strings.Index(readme, shapeEnd)
	if i < 0 || j < i {
		t.Fatalf("README.md has no section between %q and %q", shapeBegin, shapeEnd)
	}
	return readme, readme[i : j+len(shapeEnd)+1]
}

var number = regexp.MustCompile(`\d+`)

// drift compares the README's section with the code's: "" when its words
// are the same and each of its numbers within slack of the code's, else
// what differs.
func drift(readme, code string) string {
	if number.ReplaceAllString(readme, "#") != number.ReplaceAllString(code, "#") {
		return "names, files or imports differ"
	}
	got, want := number.FindAllString(readme, -1), number.FindAllString(code, -1)
	var off []string
	for i := range got {
		g, _ := strconv.ParseFloat(got[i], 64)
		w, _ := strconv.ParseFloat(want[i], 64)
		if math.Abs(g-w) > slack(w) {
			off = append(off, fmt.Sprintf("%s where the code has %s", got[i], want[i]))
		}
	}
	return strings.Join(off, "; ")
}

// TestShape: the README's Shape section says how large pricing and
// internal/cli are, which functions are the longest and which package
// imports which, as the code stands; and no package reaches what the
// import rules keep it from.
func TestShape(t *testing.T) {
	s := measure(moduleFiles(t))
	for _, b := range breaches(s.graph, importRules) {
		t.Errorf("import rule broken: %s", b)
	}
	readme, section := readmeShape(t)
	code := render(s)
	if *update {
		readme = strings.Replace(readme, section, code, 1)
		if err := os.WriteFile(filepath.Join(moduleRoot, "README.md"), []byte(readme), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if d := drift(section, code); d != "" {
		t.Errorf("README.md's Shape section is not the code's (%s); go test ./cmd/tokenfare -run TestShape -update rewrites it. The code's:\n%s", d, code)
	}
}

// TestShapeDrift checks the comparison of a section with the code's.
func TestShapeDrift(t *testing.T) {
	const code = "| `pricing` | 42 | 8562 |\nmedian 10, longest `a.f` 145\n"
	tests := []struct {
		name, readme, want string
	}{
		{"the same", code, ""},
		{"within 3%", "| `pricing` | 43 | 8800 |\nmedian 11, longest `a.f` 140\n", ""},
		{"a count off", "| `pricing` | 42 | 8000 |\nmedian 10, longest `a.f` 145\n", "8000 where the code has 8562"},
		{"a small figure off by two", "| `pricing` | 42 | 8562 |\nmedian 8, longest `a.f` 145\n", "8 where the code has 10"},
		{"another function", "| `pricing` | 42 | 8562 |\nmedian 10, longest `a.g` 145\n", "names, files or imports differ"},
		{"a figure more", "| `pricing` | 42 | 8562 | 1 |\nmedian 10, longest `a.f` 145\n", "names, files or imports differ"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := drift(tt.readme, code); got != tt.want {
				t.Errorf("drift = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestImportBreaches checks the import rules' walk on small graphs.
func TestImportBreaches(t *testing.T) {
	rules := []importRule{
		{"internal/cli", "the command line", []string{"pricing"}, nil},
		{"pgx", "a database driver", nil, []string{"ledger/postgres"}},
	}
	tests := []struct {
		name  string
		graph map[string][]string
		want  []string
	}{
		{"clean", map[string][]string{"pricing": {"ledger"}, "ledger": nil, "ledger/postgres": {"ledger", "pgx"}}, nil},
		{"through another package", map[string][]string{"pricing": {"ledger"}, "ledger": {"internal/cli"}, "internal/cli": nil},
			[]string{"pricing → ledger → internal/cli (the command line)"}},
		{"a driver outside its package", map[string][]string{"ledger/postgres": {"pgx"}, "internal/run": {"ledger/postgres"}},
			[]string{"internal/run → ledger/postgres → pgx (a database driver)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := breaches(tt.graph, rules); !slices.Equal(got, tt.want) {
				t.Errorf("breaches =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}
