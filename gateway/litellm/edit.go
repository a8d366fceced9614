package litellm

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// edit replaces the bytes [start, end) of the original text with text.
type edit struct {
	start, end int
	text       string
}

// edits is a set of edits to one text; the same edit made twice (entries
// sharing a mapping through an alias) counts once. Edits are filed under
// every line they touch, so that an edit is compared only with those of
// its own lines: a config of 100,000 entries is written in linear time.
type edits struct {
	t      *text
	list   []edit
	byLine map[int][]int // line → indexes in list of the edits touching it
}

// add records an edit, refusing one that overlaps a different edit.
func (es *edits) add(e edit) error {
	if es.byLine == nil {
		es.byLine = map[int][]int{}
	}
	first, last := es.t.lineOf(e.start), es.t.lineOf(max(e.start, e.end-1))
	for l := first; l <= last; l++ {
		for _, i := range es.byLine[l] {
			o := es.list[i]
			if o == e {
				return nil
			}
			if e.start < o.end && o.start < e.end || (e.start == e.end && e.start == o.start) {
				return fmt.Errorf("line %d: two different values would be written at the same place (entries of different models share it through an alias or merge key?)", es.t.lineOf(e.start))
			}
		}
	}
	es.list = append(es.list, e)
	for l := first; l <= last; l++ {
		es.byLine[l] = append(es.byLine[l], len(es.list)-1)
	}
	return nil
}

// apply returns the text with every edit made.
func (es *edits) apply() []byte {
	sort.Slice(es.list, func(i, j int) bool { return es.list[i].start < es.list[j].start })
	var b strings.Builder
	at := 0
	for _, e := range es.list {
		b.Write(es.t.src[at:e.start])
		b.WriteString(e.text)
		at = e.end
	}
	b.Write(es.t.src[at:])
	return []byte(b.String())
}

// pair is a key with its value as YAML text: a scalar written after
// "key: ", or block lines written under the key, indented relative to it.
type pair struct {
	key    string
	scalar string
	block  []string
}

// insertPairs adds keys to mapping m: after its last key whose value is
// written on the key's own line (or after prefer, when m holds it there),
// at that key's indentation, or before the closing brace of a flow mapping.
func (es *edits) insertPairs(m *yaml.Node, prefer []string, ps []pair) error {
	t := es.t
	if m.Style&yaml.FlowStyle != 0 {
		return es.insertFlow(m, ps)
	}
	anchorKey, anchorPref := -1, false
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Kind != yaml.ScalarNode || v.Line != k.Line || (v.Kind != yaml.ScalarNode && v.Kind != yaml.AliasNode) {
			continue
		}
		if v.Kind == yaml.ScalarNode {
			if _, _, err := t.scalarSpan(v); err != nil {
				continue
			}
		}
		pref := slices.Contains(prefer, k.Value)
		if pref || !anchorPref {
			anchorKey, anchorPref = i, pref
		}
	}
	if anchorKey < 0 {
		return fmt.Errorf("line %d: no key with a value on its own line to add prices after; add input_cost_per_token there once by hand", m.Line)
	}
	anchorEnd := t.lineEnd(m.Content[anchorKey].Line)
	indent := strings.Repeat(" ", m.Content[anchorKey].Column-1)
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(t.eol + indent + p.key + ":")
		if p.block == nil {
			b.WriteString(" " + p.scalar)
			continue
		}
		for _, l := range p.block {
			b.WriteString(t.eol + indent + "  " + l)
		}
	}
	return es.add(edit{start: anchorEnd, end: anchorEnd, text: b.String()})
}

// insertFlow adds pairs to a flow mapping, after its last value. A block
// value of plain "key: value" lines (search_context_cost_per_query) is
// written as a flow mapping of its own.
func (es *edits) insertFlow(m *yaml.Node, ps []pair) error {
	var b strings.Builder
	for _, p := range ps {
		v := p.scalar
		if p.block != nil {
			var ok bool
			if v, ok = flowMapping(p.block); !ok {
				return fmt.Errorf("line %d: cannot add a block to a mapping written in flow style {...}", m.Line)
			}
		}
		b.WriteString(", " + p.key + ": " + v)
	}
	if len(m.Content) == 0 {
		off := es.t.skipProperties(es.t.offset(m.Line, m.Column))
		if off >= len(es.t.src) || es.t.src[off] != '{' {
			return fmt.Errorf("line %d: cannot find the opening brace of the mapping", m.Line)
		}
		return es.add(edit{start: off + 1, end: off + 1, text: strings.TrimPrefix(b.String(), ", ")})
	}
	last := m.Content[len(m.Content)-1]
	var end int
	switch last.Kind {
	case yaml.AliasNode:
		end = es.t.offset(last.Line, last.Column) + 1 + len(last.Value)
	case yaml.ScalarNode:
		var err error
		if _, end, err = es.t.scalarSpan(last); err != nil {
			return err
		}
	default:
		return fmt.Errorf("line %d: cannot add prices after a nested value in a flow mapping; add input_cost_per_token there once by hand", last.Line)
	}
	return es.add(edit{start: end, end: end, text: b.String()})
}

// flowMapping writes block lines that are each "key: value", with no
// nesting, as one flow mapping: {key: value, ...}.
func flowMapping(block []string) (string, bool) {
	items := make([]string, 0, len(block))
	for _, l := range block {
		k, v, ok := strings.Cut(l, ": ")
		if !ok || k == "" || strings.HasPrefix(l, " ") || strings.ContainsAny(v, "{}[],#") {
			return "", false
		}
		items = append(items, k+": "+v)
	}
	return "{" + strings.Join(items, ", ") + "}", true
}

// replaceScalar replaces the scalar n with text, keeping any anchor, tag
// and comment around it.
func (es *edits) replaceScalar(n *yaml.Node, s string) error {
	if n.Kind == yaml.AliasNode {
		start := es.t.offset(n.Line, n.Column)
		end := start + 1 + len(n.Value)
		if end > len(es.t.src) || string(es.t.src[start:end]) != "*"+n.Value {
			return fmt.Errorf("line %d: cannot find the alias *%s as written", n.Line, n.Value)
		}
		return es.add(edit{start: start, end: end, text: s})
	}
	if n.Style&yaml.TaggedStyle != 0 && n.Tag != "!!float" {
		// The tag is kept, so the number written would still not be a float.
		return fmt.Errorf("line %d: value tagged %s cannot hold a price; remove the tag", n.Line, n.Tag)
	}
	start, end, err := es.t.scalarSpan(n)
	if err != nil {
		return err
	}
	// Keep a comment after the value in its column where spaces allow.
	sp := end
	for sp < len(es.t.src) && es.t.src[sp] == ' ' {
		sp++
	}
	if sp > end && sp < len(es.t.src) && es.t.src[sp] == '#' {
		pad := max(1, (sp-end)-(len(s)-(end-start)))
		return es.add(edit{start: start, end: sp, text: s + strings.Repeat(" ", pad)})
	}
	return es.add(edit{start: start, end: end, text: s})
}

// replaceBlock replaces the key k of a block mapping and its whole value
// (the lines indented under it) with the pair p at k's indentation.
func (es *edits) replaceBlock(k *yaml.Node, p pair) error {
	t := es.t
	indent := k.Column - 1
	line := t.lineText(k.Line)
	if strings.TrimLeft(line[:min(indent, len(line))], " ") != "" {
		return fmt.Errorf("line %d: %s does not start its line; cannot rewrite it in place", k.Line, k.Value)
	}
	last := k.Line
	for l := k.Line + 1; l <= len(t.lines); l++ {
		ind, content := t.indentOf(l)
		if !content {
			continue
		}
		if ind <= indent {
			break
		}
		last = l
	}
	pad := strings.Repeat(" ", indent)
	var b strings.Builder
	b.WriteString(pad + p.key + ":")
	if p.block == nil {
		b.WriteString(" " + p.scalar)
	}
	for _, l := range p.block {
		b.WriteString(t.eol + pad + "  " + l)
	}
	return es.add(edit{start: t.lines[k.Line-1], end: t.lineEnd(last), text: b.String()})
}
