package gateway

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// RuleAccept is the rule of the findings about acceptance comments
// themselves: one naming no known rule or giving no reason (problems), and
// one that accepts nothing (a warning: the setting it excused is gone).
const RuleAccept = "accept"

// acceptComment is the text of a YAML comment accepting rules:
// "# tokenfare:accept RULE[,RULE...] REASON".
var acceptComment = regexp.MustCompile(`^#[ \t]*tokenfare:accept([ \t].*)?$`)

// acceptance is one acceptance comment: its rules, its reason and the
// lines [from, to] it covers.
type acceptance struct {
	rules    []string
	reason   string
	line     int
	from, to int
	used     bool
}

// Accept marks Accepted each finding of file whose rule a comment of the
// config (data) accepts on the finding's line, and returns the findings,
// with one RuleAccept finding per faulty or unused comment, sorted.
//
// A comment "# tokenfare:accept health-check probes are free on our
// contract" after a value covers its line; alone on a line, it covers the
// next line that is not blank or a comment. Either way, when that line
// opens a block (a list item "- model_name: ..." or a key whose value is
// indented below it), the comment covers the whole block: one comment
// accepts a rule for one model_list entry. Several rules are separated by
// commas. rules are the rule names the comment may name; a reason is
// required, so that the config says why.
func Accept(file string, data []byte, findings []Finding, rules []string) []Finding {
	lines := bytes.Split(data, []byte("\n"))
	accs := acceptances(lines)
	// The valid comments by rule, in the file's order: a finding is
	// held against those of its rule only.
	byRule := map[string][]*acceptance{}
	for _, a := range accs {
		if a.valid(rules) {
			for _, r := range a.rules {
				byRule[r] = append(byRule[r], a)
			}
		}
	}
	out := make([]Finding, 0, len(findings))
	for _, f := range findings {
		if f.File == file && f.Severity != Accepted {
			for _, a := range byRule[f.Rule] {
				if f.Line >= a.from && f.Line <= a.to {
					f.Severity, f.Reason, f.AcceptedAt, a.used = Accepted, a.reason, a.line, true
					break
				}
			}
		}
		out = append(out, f)
	}
	for _, a := range accs {
		out = append(out, a.findings(file, rules)...)
	}
	Sort(out)
	return out
}

// valid reports whether every rule of the comment is known and it gives a
// reason.
func (a *acceptance) valid(rules []string) bool {
	if a.reason == "" || len(a.rules) == 0 {
		return false
	}
	for _, r := range a.rules {
		if !slices.Contains(rules, r) {
			return false
		}
	}
	return true
}

// findings are the comment's own findings: faulty, or accepting nothing.
func (a *acceptance) findings(file string, rules []string) []Finding {
	f := Finding{Rule: RuleAccept, File: file, Line: a.line, Field: "# tokenfare:accept", Value: strings.Join(a.rules, ",")}
	var out []Finding
	for _, r := range a.rules {
		if !slices.Contains(rules, r) {
			f.Message, f.Bound = fmt.Sprintf("%q is no rule of check (tokenfare check --help lists them)", r), "a rule of check"
			out = append(out, f)
		}
	}
	switch {
	case len(a.rules) == 0:
		f.Message, f.Bound = "the comment names no rule: write # tokenfare:accept RULE REASON", "a rule and a reason"
		out = append(out, f)
	case a.reason == "":
		f.Message, f.Bound = "the comment gives no reason: write # tokenfare:accept "+strings.Join(a.rules, ",")+" REASON", "a reason"
		out = append(out, f)
	case len(out) == 0 && !a.used:
		f.Severity, f.Bound = Warning, "a finding to accept"
		f.Message = fmt.Sprintf("accepts no %s finding on lines %d-%d: remove the comment", strings.Join(a.rules, ","), a.from, a.to)
		out = append(out, f)
	}
	return out
}

// acceptances finds the acceptance comments of a config's lines and the
// lines each covers (numbered from 1). It takes time in proportion to
// the lines (times the depth of their blocks), however many comments:
// the next content line is known for every line at once (nextContents)
// and a block's end is found once, whichever comments cover it.
func acceptances(lines [][]byte) []*acceptance {
	var out []*acceptance
	next := nextContents(lines)
	ends := map[int]int{}
	for i, l := range lines {
		l = bytes.TrimRight(l, "\r")
		c := commentStart(l)
		m := acceptComment.FindSubmatch(l[c:])
		if m == nil {
			continue
		}
		words := strings.Fields(string(m[1]))
		a := &acceptance{line: i + 1}
		if len(words) > 0 {
			a.rules = strings.FieldsFunc(words[0], func(r rune) bool { return r == ',' })
			a.reason = strings.Join(words[1:], " ")
		}
		target := i
		if len(bytes.TrimSpace(l[:c])) == 0 {
			target = next[i+1]
		}
		end, ok := ends[target]
		if !ok {
			end = blockEnd(lines, next, target)
			ends[target] = end
		}
		a.from, a.to = target+1, end+1
		out = append(out, a)
	}
	return out
}

// commentStart returns the index of the # that starts the comment of a
// YAML line (len(l) when it has none): a # at the start of the line or
// after a blank, outside quotes. A quote opens a string only where a
// scalar may start, which is enough for the lines of a config.
func commentStart(l []byte) int {
	var quote byte
	for i, c := range l {
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '#' && (i == 0 || l[i-1] == ' ' || l[i-1] == '\t'):
			return i
		case (c == '"' || c == '\'') && (i == 0 || bytes.IndexByte([]byte(" \t:-[{,"), l[i-1]) >= 0):
			quote = c
		}
	}
	return len(l)
}

// nextContents returns, for each index i from 0 to len(lines), the index
// of the first line from i on that is neither blank nor only a comment
// (len(lines) when there is none).
func nextContents(lines [][]byte) []int {
	next := make([]int, len(lines)+1)
	next[len(lines)] = len(lines)
	for i := len(lines) - 1; i >= 0; i-- {
		if t := bytes.TrimSpace(lines[i]); len(t) > 0 && t[0] != '#' {
			next[i] = i
		} else {
			next[i] = next[i+1]
		}
	}
	return next
}

// blockEnd returns the index of the last line of the block line i opens:
// i itself and every following line indented deeper than it (blank lines
// and comments inside the block belong to it). next is nextContents.
func blockEnd(lines [][]byte, next []int, i int) int {
	if i >= len(lines) {
		return i
	}
	depth := indent(lines[i])
	end := i
	for j := next[i+1]; j < len(lines) && indent(lines[j]) > depth; j = next[j+1] {
		end = j
	}
	return end
}

// indent is the column of a line's first character other than a blank.
// The keys of a list item ("- model_name: a", then "  litellm_params:")
// are indented deeper than its dash, so the item is one block.
func indent(l []byte) int {
	return len(l) - len(bytes.TrimLeft(l, " \t"))
}
