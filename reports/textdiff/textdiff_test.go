package textdiff

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"
)

// sides rebuilds the two texts an edit script goes between.
func sides(ops []diffOp) (a, b []string) {
	for _, o := range ops {
		if o.kind != '+' {
			a = append(a, o.line)
		}
		if o.kind != '-' {
			b = append(b, o.line)
		}
	}
	return a, b
}

// lcs is the length of the longest common subsequence, by the textbook
// table: the shortest script has len(a)+len(b)-2*lcs edits.
func lcs(a, b []string) int {
	t := make([][]int, len(a)+1)
	for i := range t {
		t[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				t[i][j] = t[i+1][j+1] + 1
			} else {
				t[i][j] = max(t[i+1][j], t[i][j+1])
			}
		}
	}
	return t[0][0]
}

// TestDiffScripts checks that every script leads from a to b, and is a
// shortest one where the inputs are small enough to be compared whole.
func TestDiffScripts(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 21))
	lines := func(n, alphabet int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("l%d\n", r.IntN(alphabet))
		}
		return out
	}
	for i := range 300 {
		a, b := lines(r.IntN(40), 1+r.IntN(8)), lines(r.IntN(40), 1+r.IntN(8))
		ops := diffLines(a, b)
		ga, gb := sides(ops)
		if strings.Join(ga, "") != strings.Join(a, "") || strings.Join(gb, "") != strings.Join(b, "") {
			t.Fatalf("case %d: script does not lead from a to b", i)
		}
		edits := 0
		for _, o := range ops {
			if o.kind != ' ' {
				edits++
			}
		}
		if want := len(a) + len(b) - 2*lcs(a, b); edits != want {
			t.Errorf("case %d: %d edits, want the shortest %d", i, edits, want)
		}
	}
}

// TestDiffOfLargeConfig checks the contract "a diff of two configs that
// differ in a few price lines is cheap": 13,506 lines (where the old
// diff took 3.8 GB) and 150,000 lines with scattered changes take well
// under a second and a few megabytes beyond the lines themselves, and
// list exactly the changed lines.
func TestDiffOfLargeConfig(t *testing.T) {
	for _, n := range []int{13_506, 150_000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			a := make([]string, n)
			for i := range a {
				a[i] = fmt.Sprintf("      key_%d: value\n", i%12) // lines repeat, as in a config
				if i%12 == 0 {
					a[i] = fmt.Sprintf("  - model_name: m%d\n", i)
				}
			}
			b := append([]string(nil), a...)
			changed := 0
			for i := 5; i < n; i += 97 {
				b[i] = "      input_cost_per_token: 2.5e-7\n"
				changed++
			}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			start := time.Now()
			ops := diffLines(a, b)
			took := time.Since(start)
			runtime.ReadMemStats(&after)
			minus, plus := 0, 0
			for _, o := range ops {
				switch o.kind {
				case '-':
					minus++
				case '+':
					plus++
				}
			}
			if minus != changed || plus != changed {
				t.Errorf("-%d +%d lines, want %d each", minus, plus, changed)
			}
			if took > 2*time.Second {
				t.Errorf("diff took %v", took)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(n)*400 {
				t.Errorf("diff allocated %d bytes for %d lines", alloc, n)
			}
		})
	}
}

func TestUnified(t *testing.T) {
	old := "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\n"
	new := "a\nb\nc\nD\ne\nf\ng\nh\ni\nj\nk\nl\n"
	// Seven equal lines between the changes: more than twice the context,
	// so two hunks, as GNU diff -u makes them.
	want := `--- x
+++ y
@@ -1,7 +1,7 @@
 a
 b
 c
-d
+D
 e
 f
 g
@@ -9,3 +9,4 @@
 i
 j
 k
+l
`
	if got := Unified("x", "y", []byte(old), []byte(new)); got != want {
		t.Errorf("Unified:\n%s\nwant:\n%s", got, want)
	}
	if got := Unified("x", "y", []byte(old), []byte(old)); got != "" {
		t.Errorf("Unified of equal texts: %q", got)
	}
}
