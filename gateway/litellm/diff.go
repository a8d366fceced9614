package litellm

import (
	"fmt"
	"strings"
)

// Diff returns a unified diff (three lines of context) from old to new,
// labelled with the two names; "" when they are equal.
func Diff(oldName, newName string, old, new []byte) string {
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
		out.WriteString(o.line)
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

// diffLines computes a shortest edit script with Myers' algorithm; memory
// grows with the square of the number of lines that differ, which stays
// small for a config whose prices changed.
func diffLines(a, b []string) []diffOp {
	n, m := len(a), len(b)
	maxD := n + m
	off := maxD + 1
	v := make([]int, 2*maxD+3)
	var trace [][]int
	for d := 0; d <= maxD; d++ {
		trace = append(trace, append([]int(nil), v...))
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
				return backtrack(a, b, trace, v, d, off)
			}
		}
	}
	return nil
}

func backtrack(a, b []string, trace [][]int, last []int, d, off int) []diffOp {
	x, y := len(a), len(b)
	var rev []diffOp
	trace = append(trace[:d+1:d+1], last)
	for ; d >= 0; d-- {
		v := trace[d]
		k := x - y
		var pk int
		if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := v[off+pk]
		py := px - pk
		for x > px && y > py && x > 0 && y > 0 {
			x, y = x-1, y-1
			rev = append(rev, diffOp{kind: ' ', line: a[x]})
		}
		if d == 0 {
			break
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
	ops := make([]diffOp, len(rev))
	ai, bi := 1, 1
	for i := range rev {
		o := rev[len(rev)-1-i]
		o.aAt, o.bAt = ai, bi
		if o.kind != '+' {
			ai++
		}
		if o.kind != '-' {
			bi++
		}
		ops[i] = o
	}
	return ops
}
