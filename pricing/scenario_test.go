package pricing

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/tariffs"
)

var update = flag.Bool("update", false, "rewrite the scenarios' want.json")

// scenario is one folder of testdata/scenarios: tariff.yaml, calls.csv
// (canonical calls), scenario.txt (by: DIMS and window: FROM UNTIL) and
// want.json, the reconciliation and blend they must give.
type scenario struct {
	dims        []Dim
	from, until time.Time
}

func readScenario(t *testing.T, dir string) scenario {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "scenario.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var sc scenario
	s := bufio.NewScanner(f)
	for s.Scan() {
		key, val, _ := strings.Cut(s.Text(), ":")
		val = strings.TrimSpace(val)
		switch key {
		case "by":
			if sc.dims, err = ParseDims(val); err != nil {
				t.Fatal(err)
			}
		case "window":
			from, until, _ := strings.Cut(val, " ")
			sc.from, sc.until = at(from), at(until)
		}
	}
	return sc
}

func TestScenarios(t *testing.T) {
	dirs, _ := filepath.Glob("testdata/scenarios/*")
	if len(dirs) == 0 {
		t.Fatal("no scenarios")
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			cat, ps := tariffs.Load(dir)
			if len(ps) > 0 {
				t.Fatal(ps)
			}
			sc := readScenario(t, dir)
			rec := New(cat, Options{Dims: sc.dims})
			blend := New(cat, Options{Since: sc.from, Until: sc.until})
			calls := readCalls(t, filepath.Join(dir, "calls.csv"))
			for i := range calls {
				rec.Add(&calls[i])
				blend.Add(&calls[i])
			}
			bl, err := blend.BlendWindow(sc.from, sc.until, ModePerModel)
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.MarshalIndent(map[string]any{"reconcile": rec.Reconcile(), "blend": bl}, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			want := filepath.Join(dir, "want.json")
			if *update {
				os.WriteFile(want, append(got, '\n'), 0o644)
			}
			data, err := os.ReadFile(want)
			if err != nil {
				t.Fatalf("%v (run go test ./pricing -update to create it)", err)
			}
			if string(data) != string(got)+"\n" {
				t.Errorf("%s differs; run go test ./pricing -update and review the diff\ngot:\n%s", want, got)
			}
		})
	}
}

func readCalls(t *testing.T, path string) []ledger.Call {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := ledger.Open(path, f, ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.(io.Closer).Close()
	var out []ledger.Call
	var b ledger.Batch
	for {
		err := r.Next(&b)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(b.Rejected) > 0 {
			t.Fatalf("rejected: %v", b.Rejected)
		}
		out = append(out, b.Calls...)
	}
}
