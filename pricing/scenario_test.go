package pricing_test

import (
	"bufio"
	"bytes"
	"context"
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
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/reports"
	"github.com/tokenfare/tokenfare/tariffs"
)

var update = flag.Bool("update", false, "rewrite the scenarios' want.json")

// scenario is one folder of testdata/scenarios: tariff.yaml, calls.csv
// (canonical calls), scenario.txt (by: DIMS and window: FROM UNTIL) and
// want.json, the reconciliation and blend they must give in the JSON of
// reports.
type scenario struct {
	dims        []pricing.Dim
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
			if sc.dims, _, err = pricing.ParseDims(val); err != nil {
				t.Fatal(err)
			}
		case "window":
			from, until, _ := strings.Cut(val, " ")
			sc.from, sc.until = instant(t, from), instant(t, until)
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
			rec := pricing.New(cat, pricing.Options{Dims: sc.dims})
			blend := pricing.New(cat, pricing.Options{Since: sc.from, Until: sc.until})
			calls := readCalls(t, filepath.Join(dir, "calls.csv"))
			for i := range calls {
				rec.AddPriced(&calls[i])
				blend.AddPriced(&calls[i])
			}
			var recJSON, blendJSON bytes.Buffer
			if err := reports.Reconciliation(&recJSON, reports.JSON, rec.Reconcile()); err != nil {
				t.Fatal(err)
			}
			if err := reports.Blend(&blendJSON, reports.JSON, blend.BlendWindow(sc.from, sc.until, pricing.ModePerModel)); err != nil {
				t.Fatal(err)
			}
			got, err := json.MarshalIndent(map[string]json.RawMessage{"reconcile": recJSON.Bytes(), "blend": blendJSON.Bytes()}, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			want := filepath.Join(dir, "want.json")
			if *update {
				if err := os.WriteFile(want, append(got, '\n'), 0o644); err != nil {
					t.Fatalf("-update: %v", err)
				}
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

func instant(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func readCalls(t *testing.T, path string) []ledger.Call {
	t.Helper()
	ctx := context.Background()
	r, err := ledger.FileSource(path, ledger.Options{}).Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []ledger.Call
	var b ledger.Batch
	for {
		err := r.Next(ctx, &b)
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
