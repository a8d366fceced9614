package state

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/tokenfare/tokenfare/failures"
	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

// packageFiles parses the package's Go files, tests left out.
func packageFiles(t *testing.T) map[string]*ast.File {
	t.Helper()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	out := map[string]*ast.File{}
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, n, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		out[n] = f
	}
	return out
}

// schemaConsts returns the bucketName constants a file declares, by name,
// with their values.
func schemaConsts(t *testing.T, f *ast.File) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			v := s.(*ast.ValueSpec)
			if id, ok := v.Type.(*ast.Ident); ok && id.Name == "bucketName" {
				for i, n := range v.Names {
					lit, ok := v.Values[i].(*ast.BasicLit)
					if !ok {
						t.Fatalf("bucket constant %s is not a string literal", n.Name)
					}
					out[n.Name], _ = strconv.Unquote(lit.Value)
				}
			}
		}
	}
	return out
}

// TestBucketsOnlyThroughSchema: only storage.go imports bbolt; a bucket
// is opened, made or dropped (txn.bucket, ensure, drop) only by one of
// the bucketName constants of schema.go, and no other file declares or
// converts to a bucketName; each constant is in the schema list. A bucket
// used in the code and not listed fails here.
func TestBucketsOnlyThroughSchema(t *testing.T) {
	files := packageFiles(t)
	consts := schemaConsts(t, files["schema.go"])
	if len(consts) == 0 {
		t.Fatal("schema.go declares no bucketName constant")
	}
	for name, f := range files {
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); strings.HasPrefix(p, "go.etcd.io/bbolt") && name != "storage.go" {
				t.Errorf("%s imports %s: only storage.go calls bbolt", name, p)
			}
		}
		if name == "schema.go" || name == "storage.go" {
			continue
		}
		for c := range schemaConsts(t, f) {
			t.Errorf("%s declares bucket %s: every bucket is declared in schema.go", name, c)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			switch fn := call.Fun.(type) {
			case *ast.Ident:
				if fn.Name == "bucketName" {
					t.Errorf("%s makes a bucket name of its own: bucketName(...)", name)
				}
			case *ast.SelectorExpr:
				if !slices.Contains([]string{"bucket", "ensure", "drop"}, fn.Sel.Name) || len(call.Args) != 1 {
					return true
				}
				if id, ok := call.Args[0].(*ast.Ident); !ok || consts[id.Name] == "" {
					t.Errorf("%s: %s(%s): a bucket is named by a constant of schema.go", name, fn.Sel.Name, exprText(call.Args[0]))
				}
			}
			return true
		})
	}
	for c, name := range consts {
		if !listed(name) {
			t.Errorf("bucket %s (%q) is not in the schema list", c, name)
		}
	}
	if len(consts) != len(schema) {
		t.Errorf("schema.go declares %d buckets, its list holds %d", len(consts), len(schema))
	}
}

// exprText returns an expression's source, roughly, for a message.
func exprText(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.BasicLit:
		return x.Value
	case *ast.Ident:
		return x.Name
	}
	return "an expression"
}

// fileBuckets returns the names of the buckets of the state file at path.
func fileBuckets(t *testing.T, path string) []string {
	t.Helper()
	d, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var out []string
	d.View(func(tx *bolt.Tx) error {
		out = (&txn{tx}).names()
		return nil
	})
	return out
}

// TestFilesHoldOnlySchemaBuckets: the state files tokenfare writes, a
// refresh in parts caught mid-flush, after its commit and cut off in its
// move, and the fixtures of every earlier layout, hold only buckets of
// the schema; together they hold every one (the schema lists none that
// is never written).
func TestFilesHoldOnlySchemaBuckets(t *testing.T) {
	seen := map[string]bool{}
	check := func(when, path string) {
		t.Helper()
		for _, n := range fileBuckets(t, path) {
			seen[n] = true
			if !listed(n) {
				t.Errorf("%s: the file holds bucket %q, which schema.go does not list", when, n)
			}
		}
	}
	for _, fx := range compatFixtures {
		check("fixture "+fx.name, filepath.Join("testdata", "compat", fx.name+".db"))
	}
	check("a refresh in parts, mid-flush", midFlush(t))
	for _, b := range schema {
		if !seen[string(b.name)] {
			t.Errorf("bucket %q of the schema is in none of the files", b.name)
		}
	}
}

// midFlush returns a state whose file feed was refreshed, then read again
// in parts and not committed: its pending sums flushed, the file closed.
func midFlush(t *testing.T) string {
	cat := embedded(t)
	dir := t.TempDir()
	path, log := filepath.Join(dir, "state.db"), filepath.Join(dir, "calls.csv")
	rows := billedCalls(200)
	writeCanonical(t, log, rows[:100])
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	feed := Feed{Name: "calls", Files: func() ([]string, error) { return []string{log}, nil }}
	if _, err := refresh(s, cat, pricing.Options{}, []Feed{feed}); err != nil {
		t.Fatal(err)
	}
	writeCanonical(t, log, rows)
	s.partKeys = 5
	b, err := s.Begin("calls")
	if err != nil {
		t.Fatal(err)
	}
	b.Use(cat, nil)
	src := ledger.FileSource(log, ledger.Options{})
	if _, err := runEngine(RunInput{Catalog: cat, Sources: []ledger.Source{src}, Observers: []pricing.Observer{b}}); err != nil {
		t.Fatal(err)
	}
	if !b.flushed {
		t.Fatal("the batch flushed nothing")
	}
	b.tx.Rollback()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestKeyLayouts: the keys of schema.go decode to what they were made
// of, and the records of bucketMeta and bucketSeen decode as laid out
// (the hex worked out from the layouts in docs/state-format.md:
// 2026-11-02T10:00Z is Unix 1793613600, 2026-10-01 0x6abda280,
// 2026-10-31T23:45Z 0x6ae67d7c).
func TestKeyLayouts(t *testing.T) {
	hour := time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC).UnixNano()
	k := chunkKey(hour, "calls", 3)
	if want := "18e43210f44f4000" + "63616c6c73" + "00" + "0000000000000003"; fmt.Sprintf("%x", k) != want {
		t.Errorf("chunkKey %x, want %s", k, want)
	}
	if src, ok := chunkSource(k); !ok || string(src) != "calls" || int64(chunkHour(k)) != hour {
		t.Errorf("chunk key: source %q (%v), hour %d; want calls, %d", src, ok, chunkHour(k), hour)
	}
	if _, ok := chunkSource([]byte("short")); ok {
		t.Error("a key of 5 bytes is a chunk key")
	}
	if got := string(fileKey("feed", "a/b.csv")); got != "feed\x00a/b.csv" || !strings.HasPrefix(got, string(fileKey("feed", ""))) {
		t.Errorf("fileKey %q", got)
	}
	first, last := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 10, 31, 23, 45, 0, 0, time.UTC)
	span := encodeSpan(first, last)
	if want := "000000006abda280" + "000000006ae67d7c"; fmt.Sprintf("%x", span) != want {
		t.Errorf("span %x, want %s", span, want)
	}
	if f, l, ok := decodeSpan(span); !ok || !f.Equal(first) || !l.Equal(last) {
		t.Errorf("span decodes to %s..%s (%v)", f, l, ok)
	}
	if f, l, ok := decodeSpan(encodeSpan(time.Time{}, time.Time{})); !ok || !f.IsZero() || !l.IsZero() {
		t.Errorf("no span decodes to %s..%s (%v), want zero", f, l, ok)
	}
	if st, ok := decodeLanded(encodeLanded(last)); !ok || !st.Equal(last) {
		t.Errorf("landed decodes to %s (%v)", st, ok)
	}
	if _, ok := decodeLanded(nil); ok {
		t.Error("no landed record decodes")
	}
}

// TestDecodeSeenV0: a record of the earlier format is an identity and its
// copies, or, its key ending in two zero bytes and the source's name, an
// overlap.
func TestDecodeSeenV0(t *testing.T) {
	id := "\x18\xe4\x32\x10\xf4\x4f\x40\x00litellm\x00r-1"
	copies := func(n byte, src string) []byte { return append([]byte{0, 0, 0, 0, 0, 0, 0, n}, src...) }
	tests := []struct {
		name    string
		k, v    []byte
		wantSrc string
		want    entry
		err     bool
	}{
		{name: "identity", k: []byte(id), v: copies(2, "a.csv"), wantSrc: "a.csv", want: entry{id: id, n: 2}},
		{name: "overlap", k: []byte(id + "\x00\x00b.csv"), v: copies(1, "b.csv"), wantSrc: "b.csv", want: entry{id: id, n: 1, overlap: true}},
		{name: "value cut short", k: []byte(id), v: []byte{0, 1}, err: true},
		{name: "key cut short", k: []byte("r-1"), v: copies(1, "a.csv"), err: true},
	}
	for _, tt := range tests {
		src, e, err := decodeSeenV0(tt.k, tt.v)
		if (err != nil) != tt.err || src != tt.wantSrc || e != tt.want {
			t.Errorf("%s: %q %+v %v; want %q %+v, error %v", tt.name, src, e, err, tt.wantSrc, tt.want, tt.err)
		}
	}
}

// TestNumbersOnDisk: the sums' records keep the domain's enumerations by
// number (an outcome, a service tier, a billing instant and a failure
// class in a byte; the quantities in the order of tariffs' usage types):
// renumbering one would read every state written before otherwise. A new
// value goes after the last (docs/state-format.md).
func TestNumbersOnDisk(t *testing.T) {
	tests := []struct {
		name string
		got  []int
		want []int
	}{
		{name: "outcome: priced unpriced retired failed duplicate outside cache_hit overlap",
			got:  []int{int(pricing.Priced), int(pricing.Unpriced), int(pricing.Retired), int(pricing.Failed), int(pricing.Duplicate), int(pricing.Outside), int(pricing.CacheHit), int(pricing.Overlap)},
			want: []int{0, 1, 2, 3, 4, 5, 6, 7}},
		{name: "service tier: standard batch flex priority",
			got:  []int{int(ledger.TierStandard), int(ledger.TierBatch), int(ledger.TierFlex), int(ledger.TierPriority)},
			want: []int{0, 1, 2, 3}},
		{name: "billing instant: end start first_token",
			got:  []int{int(tariffs.BillEnd), int(tariffs.BillStart), int(tariffs.BillFirstToken)},
			want: []int{0, 1, 2}},
		{name: "failure class: unknown upstream gateway",
			got:  []int{int(failures.Unknown), int(failures.Upstream), int(failures.Gateway)},
			want: []int{0, 1, 2}},
		{name: "quantities: input cache_read cache_write cache_write_1h output reasoning request web_search web_fetch file_search",
			got: []int{int(tariffs.Input), int(tariffs.CacheRead), int(tariffs.CacheWrite), int(tariffs.CacheWrite1h), int(tariffs.Output),
				int(tariffs.Reasoning), int(tariffs.Request), int(tariffs.WebSearch), int(tariffs.WebFetch), int(tariffs.FileSearch)},
			want: []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
	}
	for _, tt := range tests {
		if !slices.Equal(tt.got, tt.want) {
			t.Errorf("%s: numbered %v, the state's records %v", tt.name, tt.got, tt.want)
		}
	}
}

// TestSourceRecordKeepsEveryRow: a source's record keeps every field of
// pricing.Rows (a field added there must be added to rowsRecord, under a
// name of its own), under the names states were written with.
func TestSourceRecordKeepsEveryRow(t *testing.T) {
	src := Source{Name: "calls", Watermark: time.Unix(0, 1793613600123456789).UTC(), Refreshes: 4, Late: 2}
	rv := reflect.ValueOf(&src.Rows).Elem()
	for i := range rv.NumField() {
		rv.Field(i).SetInt(int64(10 + i))
	}
	b := encodeSource(&src)
	want := `{"w":1793613600123456789,"rows":{"Read":10,"Priced":11,"Unpriced":12,"Retired":13,"Failed":14,"Duplicate":15,` +
		`"Rejected":16,"Outside":17,"CacheHit":18},"refreshes":4,"late":2}`
	if rv.NumField() == 9 && string(b) != want {
		t.Errorf("record %s, want %s", b, want)
	}
	got := Source{Name: "calls"}
	if err := decodeSource(b, &got); err != nil || !reflect.DeepEqual(got, src) {
		t.Errorf("decoded %+v (%v), want %+v", got, err, src)
	}
}
