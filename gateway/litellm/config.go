package litellm

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/tokenfare/tokenfare/gateway"
	"github.com/tokenfare/tokenfare/internal/yamlin"
	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/tariffs"
	"gopkg.in/yaml.v3"
)

// Config is a LiteLLM proxy config.yaml as read: its bytes, its node tree
// and its model_list entries.
type Config struct {
	File    string
	Entries []*Entry
	text    *text
	root    *yaml.Node // the top-level mapping
}

// Entry is one deployment of model_list.
type Entry struct {
	ModelName string // model_name: the public model group
	Line      int    // line of the entry in the file
	Model     string // litellm_params.model
	BaseModel string // model_info.base_model
	node      *yaml.Node
	params    *yaml.Node // litellm_params mapping, nil when absent
	info      *yaml.Node // model_info mapping, nil when absent
}

// ParseError is a config that cannot be read, with the line at fault.
type ParseError struct {
	File string
	Line int
	Msg  string
}

func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// Parse reads a LiteLLM config. A file that is not YAML, or whose
// model_list is not a list of mappings, is a *ParseError naming the line.
func Parse(file string, data []byte) (*Config, error) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &ParseError{File: file, Msg: "file is empty"}
		}
		return nil, yamlError(file, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, &ParseError{File: file, Line: extra.Line, Msg: "more than one YAML document"}
	} else if !errors.Is(err, io.EOF) {
		return nil, yamlError(file, err)
	}
	c := &Config{File: file, text: newText(data)}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, &ParseError{File: file, Line: doc.Line, Msg: "top level is not a mapping"}
	}
	c.root = doc.Content[0]
	var ae *yamlin.AliasError
	if errors.As(yamlin.Aliases(c.root), &ae) {
		return nil, &ParseError{File: file, Line: ae.Line, Msg: ae.Error()}
	}
	if k, first := duplicateKey(c.root); k != nil {
		return nil, &ParseError{File: file, Line: k.Line, Msg: fmt.Sprintf("key %s is given twice in one mapping (first on line %d): LiteLLM (PyYAML) keeps the last silently; remove one", k.Value, first.Line)}
	}
	return c, c.readEntries()
}

// duplicateKey returns the second of two equal keys of one mapping under
// n, and the first, or nil. yaml.v3 keeps both in a node tree; PyYAML
// keeps the last, so a price read or written at the first would not be
// the one LiteLLM charges. Aliases are checked where their anchor stands.
func duplicateKey(n *yaml.Node) (second, first *yaml.Node) {
	if n.Kind == yaml.MappingNode {
		seen := map[string]*yaml.Node{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode || k.Tag == "!!merge" {
				continue
			}
			if f, ok := seen[k.Value]; ok {
				return k, f
			}
			seen[k.Value] = k
		}
	}
	for _, c := range n.Content {
		if s, f := duplicateKey(c); s != nil {
			return s, f
		}
	}
	return nil, nil
}

func yamlError(file string, err error) error {
	line, msg := gateway.YAMLError(err)
	return &ParseError{File: file, Line: line, Msg: msg}
}

func (c *Config) readEntries() error {
	_, list := lookup(c.root, "model_list")
	if list == nil {
		return nil
	}
	if list.Kind != yaml.SequenceNode {
		return &ParseError{File: c.File, Line: list.Line, Msg: "model_list is not a list"}
	}
	for _, item := range list.Content {
		n := deref(item)
		if n.Kind != yaml.MappingNode {
			return &ParseError{File: c.File, Line: item.Line, Msg: "model_list entry is not a mapping"}
		}
		e := &Entry{node: n, Line: item.Line}
		e.ModelName = scalarOf(n, "model_name")
		for _, sub := range []struct {
			key string
			to  **yaml.Node
		}{{"litellm_params", &e.params}, {"model_info", &e.info}} {
			_, v := lookup(n, sub.key)
			if v == nil || (v.Kind == yaml.ScalarNode && v.Tag == "!!null") {
				continue
			}
			if v.Kind != yaml.MappingNode {
				return &ParseError{File: c.File, Line: v.Line, Msg: fmt.Sprintf("%s of %q is not a mapping", sub.key, e.ModelName)}
			}
			*sub.to = v
		}
		e.Model = scalarOf(e.params, "model")
		e.BaseModel = scalarOf(e.info, "base_model")
		c.Entries = append(c.Entries, e)
	}
	return nil
}

// Names returns the names an entry's model may be known by in a tariff
// catalog, most specific first: model_info.base_model (LiteLLM's own
// pricing key), litellm_params.model, then model_name.
func (e *Entry) Names() []string {
	var out []string
	for _, n := range []string{e.BaseModel, e.Model, e.ModelName} {
		if n != "" && !strings.HasPrefix(n, "os.environ/") && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// Host returns who serves the deployment, as the spend logs will name it
// (ledger.LiteLLMHost): litellm_params.custom_llm_provider, then a known
// host as the prefix of litellm_params.model, then the host api_base
// points at, then a known host as the prefix of model_info.base_model;
// "" when none says.
func (e *Entry) Host() string {
	return ledger.LiteLLMHost(scalarOf(e.params, "custom_llm_provider"), e.Model, scalarOf(e.params, "api_base"), e.BaseModel)
}

// Resolve returns the tariff model of the entry, trying each of its names
// among the lists of the entry's host only: an Azure deployment of gpt-4o
// is Azure's gpt-4o or nothing, never OpenAI's. host is the host looked
// up among ("" for the first-party lists); when ok is false and
// cat.PricesHost(host) is false, no tariff prices the entry's host.
func (e *Entry) Resolve(cat *tariffs.Catalog) (m *tariffs.Model, host string, ok bool) {
	host = e.Host()
	for _, n := range e.Names() {
		m, at, ok := cat.ResolveOn(host, n)
		if ok {
			return m, at, true
		}
		if host == "" {
			host = at // a host a name gives binds the names after it
		}
	}
	return nil, host, false
}

// deref follows an alias to the node it names.
func deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// lookup returns the key and value nodes of key in mapping m, looking
// through merge keys (<<) when m does not hold key itself. The value is
// dereferenced.
func lookup(m *yaml.Node, key string) (k, v *yaml.Node) {
	k, v, _ = lookupOwn(m, key)
	return k, v
}

// lookupOwn is lookup that also reports whether m holds key itself
// rather than through a merge key.
func lookupOwn(m *yaml.Node, key string) (k, v *yaml.Node, own bool) {
	return lookupSeen(m, key, nil)
}

// lookupSeen is lookupOwn that skips mappings already searched: merges of
// merges may name one mapping many times, and searching it again would
// cost time exponential in their depth.
func lookupSeen(m *yaml.Node, key string, seen map[*yaml.Node]bool) (k, v *yaml.Node, own bool) {
	m = deref(m)
	if m == nil || m.Kind != yaml.MappingNode || seen[m] {
		return nil, nil, false
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Kind == yaml.ScalarNode && m.Content[i].Tag != "!!merge" && m.Content[i].Value == key {
			return m.Content[i], deref(m.Content[i+1]), true
		}
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Tag != "!!merge" {
			continue
		}
		if seen == nil {
			seen = map[*yaml.Node]bool{}
		}
		seen[m] = true
		src := deref(m.Content[i+1])
		srcs := []*yaml.Node{src}
		if src.Kind == yaml.SequenceNode {
			srcs = src.Content
		}
		for _, s := range srcs {
			if k, v, _ := lookupSeen(s, key, seen); k != nil {
				return k, v, false
			}
		}
	}
	return nil, nil, false
}

// scalarOf returns the scalar value of key in m, or "".
func scalarOf(m *yaml.Node, key string) string {
	_, v := lookup(m, key)
	if v == nil || v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
		return ""
	}
	return v.Value
}

// section returns a top-level mapping such as router_settings, or nil.
func (c *Config) section(name string) *yaml.Node {
	_, v := lookup(c.root, name)
	if v == nil || v.Kind != yaml.MappingNode {
		return nil
	}
	return v
}
