// Package textdiff writes the unified diff of two texts, as a config's
// write-back shows it with --dry-run: three lines of context, hunks as
// GNU diff -u makes them, in time and memory near linear in the lines
// when the texts differ in a few places.
package textdiff

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tokenfare/tokenfare/internal/secret"
)

// Unified returns a unified diff (three lines of context) from old to new,
// labelled with the two names; "" when they are equal. Secrets on the
// lines shown (api_key values, sk-... keys) are masked (secret.Line): a
// diff goes to CI logs. It is for reading, not for patch.
func Unified(oldName, newName string, old, new []byte) string {
	a, b := splitLines(string(old)), splitLines(string(new))
	ops := diffLines(a, b)
	var out strings.Builder
	const ctx = 3
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		// A hunk: from ctx lines before this change to ctx lines after the
		// last change that is at most 2*ctx equal lines from the next.
		start := max(0, i-ctx)
		end := i
		for j := i; j < len(ops); j++ {
			if ops[j].kind != ' ' {
				end = j
				continue
			}
			if j-end > 2*ctx {
				break
			}
		}
		end = min(len(ops), end+ctx+1)
		if out.Len() == 0 {
			fmt.Fprintf(&out, "--- %s\n+++ %s\n", oldName, newName)
		}
		writeHunk(&out, ops[start:end])
		i = end
	}
	return out.String()
}

type diffOp struct {
	kind     byte // ' ', '-', '+'
	line     string
	aAt, bAt int // line numbers (from 1) in old and new before this op
}

func writeHunk(out *strings.Builder, ops []diffOp) {
	na, nb := 0, 0
	for _, o := range ops {
		if o.kind != '+' {
			na++
		}
		if o.kind != '-' {
			nb++
		}
	}
	aStart, bStart := ops[0].aAt, ops[0].bAt
	if na == 0 {
		aStart--
	}
	if nb == 0 {
		bStart--
	}
	fmt.Fprintf(out, "@@ -%d,%d +%d,%d @@\n", aStart, na, bStart, nb)
	for _, o := range ops {
		out.WriteByte(o.kind)
		out.WriteString(secret.Line(o.line))
		if !strings.HasSuffix(o.line, "\n") {
			out.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// diffLines returns an edit script from a to b, in time and memory near
// linear in the lines for two configs that differ in a few places: the
// common head and tail are cut off, lines found once in each side anchor
// the rest (their longest increasing run, as patience diff does), and
// only the short runs between anchors are compared line by line (Myers'
// algorithm, bounded). A run that differs beyond the bound is written as
// removed and added whole: a valid diff, if not the shortest.
func diffLines(a, b []string) []diffOp {
	var ops []diffOp
	diffRange(&ops, a, b)
	ai, bi := 1, 1
	for i := range ops {
		ops[i].aAt, ops[i].bAt = ai, bi
		if ops[i].kind != '+' {
			ai++
		}
		if ops[i].kind != '-' {
			bi++
		}
	}
	return ops
}

// maxEdits bounds the edit distance Myers' algorithm looks for in one
// run between anchors: its memory grows with the square of it. Its time
// grows with the edits times the lines, which maxWork bounds for long
// runs.
const (
	maxEdits = 1000
	maxWork  = 20_000_000
)

// diffRange appends the ops from a to b.
func diffRange(ops *[]diffOp, a, b []string) {
	head := 0
	for head < len(a) && head < len(b) && a[head] == b[head] {
		head++
	}
	tail := 0
	for tail < len(a)-head && tail < len(b)-head && a[len(a)-1-tail] == b[len(b)-1-tail] {
		tail++
	}
	for _, l := range a[:head] {
		*ops = append(*ops, diffOp{kind: ' ', line: l})
	}
	diffMiddle(ops, a[head:len(a)-tail], b[head:len(b)-tail])
	for _, l := range a[len(a)-tail:] {
		*ops = append(*ops, diffOp{kind: ' ', line: l})
	}
}

// diffMiddle appends the ops from a to b, which differ at both ends.
func diffMiddle(ops *[]diffOp, a, b []string) {
	var anchors [][2]int // only runs too long for Myers' bound are cut at anchors
	if len(a) > 0 && len(b) > 0 && len(a)+len(b) > 2*maxEdits {
		anchors = uniqueAnchors(a, b)
	}
	if len(anchors) == 0 {
		if !myers(ops, a, b) {
			replaceAll(ops, a, b)
		}
		return
	}
	ai, bi := 0, 0
	for _, an := range anchors {
		diffRange(ops, a[ai:an[0]], b[bi:an[1]])
		*ops = append(*ops, diffOp{kind: ' ', line: a[an[0]]})
		ai, bi = an[0]+1, an[1]+1
	}
	diffRange(ops, a[ai:], b[bi:])
}

// replaceAll appends a removed and b added.
func replaceAll(ops *[]diffOp, a, b []string) {
	for _, l := range a {
		*ops = append(*ops, diffOp{kind: '-', line: l})
	}
	for _, l := range b {
		*ops = append(*ops, diffOp{kind: '+', line: l})
	}
}

// uniqueAnchors returns pairs (i, j) with a[i] == b[j] a line found once
// in a and once in b, the longest run increasing in both.
func uniqueAnchors(a, b []string) [][2]int {
	type seen struct{ na, nb, ia, ib int }
	count := make(map[string]*seen, len(a))
	for i, l := range a {
		s := count[l]
		if s == nil {
			s = &seen{}
			count[l] = s
		}
		s.na, s.ia = s.na+1, i
	}
	for j, l := range b {
		if s := count[l]; s != nil {
			s.nb, s.ib = s.nb+1, j
		}
	}
	var pairs [][2]int // in order of a
	for _, l := range a {
		if s := count[l]; s.na == 1 && s.nb == 1 {
			pairs = append(pairs, [2]int{s.ia, s.ib})
		}
	}
	return increasingRun(pairs)
}

// increasingRun returns the longest subsequence of pairs whose second
// members increase (patience sorting, n log n).
func increasingRun(pairs [][2]int) [][2]int {
	var tops []int // tops[k]: index in pairs of the smallest end of a run of k+1
	prev := make([]int, len(pairs))
	for i, p := range pairs {
		k := sort.Search(len(tops), func(k int) bool { return pairs[tops[k]][1] >= p[1] })
		prev[i] = -1
		if k > 0 {
			prev[i] = tops[k-1]
		}
		if k == len(tops) {
			tops = append(tops, i)
		} else {
			tops[k] = i
		}
	}
	if len(tops) == 0 {
		return nil
	}
	out := make([][2]int, len(tops))
	for i, k := tops[len(tops)-1], len(tops)-1; k >= 0; i, k = prev[i], k-1 {
		out[k] = pairs[i]
	}
	return out
}

// myers appends a shortest edit script from a to b (Myers' algorithm),
// or reports false, appending nothing, when it needs more than maxEdits
// edits. Each step keeps only its own diagonals, so memory grows with the
// square of the edits, never with the lines.
func myers(ops *[]diffOp, a, b []string) bool {
	n, m := len(a), len(b)
	maxD := min(n+m, maxEdits, max(16, maxWork/max(1, n+m)))
	off := maxD + 1
	v := make([]int, 2*maxD+3)
	var trace [][]int // trace[d]: v[-d..d] before step d
	for d := 0; d <= maxD; d++ {
		trace = append(trace, append([]int(nil), v[off-d:off+d+1]...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[off+k] = x
			if x >= n && y >= m {
				backtrack(ops, a, b, trace, d)
				return true
			}
		}
	}
	return false
}

func backtrack(ops *[]diffOp, a, b []string, trace [][]int, d int) {
	x, y := len(a), len(b)
	var rev []diffOp
	for ; d > 0; d-- {
		v := trace[d]
		at := func(k int) int { return v[k+d] }
		k := x - y
		pk := k - 1
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			pk = k + 1
		}
		px := at(pk)
		py := px - pk
		for x > px && y > py {
			x, y = x-1, y-1
			rev = append(rev, diffOp{kind: ' ', line: a[x]})
		}
		if x == px {
			y--
			rev = append(rev, diffOp{kind: '+', line: b[y]})
		} else {
			x--
			rev = append(rev, diffOp{kind: '-', line: a[x]})
		}
	}
	for x > 0 && y > 0 {
		x, y = x-1, y-1
		rev = append(rev, diffOp{kind: ' ', line: a[x]})
	}
	for i := len(rev) - 1; i >= 0; i-- {
		*ops = append(*ops, rev[i])
	}
}
