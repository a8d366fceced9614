package cliproxy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/tokenfare/tokenfare/gateway"
	"github.com/tokenfare/tokenfare/internal/yamlin"
	"gopkg.in/yaml.v3"
)

// Rule names, as findings carry them. Both rules are about the one
// switch, disable-cooling, sized to the keys a provider holds, and are
// checked together by Check.
const (
	RuleSingleKeyCooling = "single-key-cooling"
	RuleGlobalCoolingOff = "global-cooling-off"
)

// Options are the check's thresholds.
type Options struct {
	// PoolKeys is the fewest API keys that make a provider a pool, whose
	// cooldown is its rotation: below it cooling on is a finding, at or
	// above it cooling turned off globally is.
	PoolKeys int
}

// keyed are the top-level sections of API-key credentials, one provider
// each; every entry is one key.
var keyed = []string{"claude-api-key", "gemini-api-key", "codex-api-key", "xai-api-key", "vertex-api-key"}

// marks are top-level keys only CLIProxyAPI configs have.
var marks = append([]string{"openai-compatibility", "auth-dir", "api-keys", "disable-cooling",
	"request-retry", "remote-management", "usage-statistics-enabled", "oauth-model-alias"}, keyed...)

// ParseError is a config that cannot be read, with the line at fault.
type ParseError struct {
	File string
	Line int
	Msg  string
}

func (e *ParseError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

func parse(file string, data []byte) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &ParseError{File: file, Msg: "file is empty"}
		}
		line, msg := gateway.YAMLError(err)
		return nil, &ParseError{File: file, Line: line, Msg: msg}
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, &ParseError{File: file, Line: doc.Line, Msg: "top level is not a mapping"}
	}
	var ae *yamlin.AliasError
	if errors.As(yamlin.Aliases(&doc), &ae) {
		return nil, &ParseError{File: file, Line: ae.Line, Msg: ae.Error()}
	}
	return doc.Content[0], nil
}

// Detect reports whether data is a CLIProxyAPI config: a mapping with one
// of its own top-level keys and no model_list.
func Detect(data []byte) bool {
	root, err := parse("", data)
	if err != nil || get(root, "model_list") != nil {
		return false
	}
	for _, k := range marks {
		if get(root, k) != nil {
			return true
		}
	}
	return false
}

// get returns the value of key in mapping m, or nil.
func get(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			v := m.Content[i+1]
			for v.Kind == yaml.AliasNode {
				v = v.Alias
			}
			return v
		}
	}
	return nil
}

func isTrue(n *yaml.Node) bool {
	return n != nil && n.Kind == yaml.ScalarNode && strings.EqualFold(n.Value, "true")
}

// provider is one provider of a config and its API keys.
type provider struct {
	name  string
	node  *yaml.Node   // where findings point: the entry, or the first key of a keyed section
	field string       // the provider's path, e.g. "claude-api-key" or "openai-compatibility[0]"
	own   *yaml.Node   // the provider's disable-cooling, nil when unset
	keys  []*yaml.Node // one entry per key
}

// providers returns the providers with at least one key, in file order.
func providers(root *yaml.Node) []provider {
	var out []provider
	for _, sec := range keyed {
		list := get(root, sec)
		if list == nil || list.Kind != yaml.SequenceNode || len(list.Content) == 0 {
			continue
		}
		out = append(out, provider{name: strings.TrimSuffix(sec, "-api-key"), node: list.Content[0], field: sec, keys: list.Content})
	}
	if list := get(root, "openai-compatibility"); list != nil && list.Kind == yaml.SequenceNode {
		for i, e := range list.Content {
			keys := get(e, "api-key-entries")
			if keys == nil {
				keys = get(e, "api-keys")
			}
			if keys == nil || keys.Kind != yaml.SequenceNode || len(keys.Content) == 0 {
				continue
			}
			out = append(out, provider{name: scalar(get(e, "name")), node: e, field: fmt.Sprintf("openai-compatibility[%d]", i),
				own: get(e, "disable-cooling"), keys: keys.Content})
		}
	}
	return out
}

// Check runs both cooling rules on a config:
//
//   - single-key-cooling: a provider with fewer than PoolKeys API keys (one,
//     by default) and cooling on (disable-cooling unset or false at every
//     level, and transient-error-cooldown-seconds not negative): one
//     upstream 5xx then makes the gateway refuse every request for that
//     provider for the cooldown;
//   - global-cooling-off: disable-cooling: true at the top level while a
//     provider holds PoolKeys keys or more and neither it nor its keys
//     set disable-cooling: the cooldown is what rotates a failing key out
//     of that pool.
//
// A key's disable-cooling overrides its provider's, which overrides the
// top level's.
func Check(file string, data []byte, opts Options) ([]gateway.Finding, error) {
	root, err := parse(file, data)
	if err != nil {
		return nil, err
	}
	global := get(root, "disable-cooling")
	transientOff := false
	if t := get(root, "transient-error-cooldown-seconds"); t != nil && strings.HasPrefix(t.Value, "-") {
		transientOff = true
	}
	var out []gateway.Finding
	for _, p := range providers(root) {
		n := len(p.keys)
		switch {
		case n < opts.PoolKeys && !transientOff && p.cooling(global):
			out = append(out, gateway.Finding{Rule: RuleSingleKeyCooling, Severity: gateway.Problem, ModelName: p.name,
				File: file, Line: p.node.Line, Field: p.keyField(), Value: scalar(get(p.node, "disable-cooling")),
				Bound:   fmt.Sprintf("%d keys or more, or disable-cooling: true", opts.PoolKeys),
				Message: p.singleMessage(opts.PoolKeys)})
		case n >= opts.PoolKeys && isTrue(global) && p.inherits():
			out = append(out, gateway.Finding{Rule: RuleGlobalCoolingOff, Severity: gateway.Problem, ModelName: p.name,
				File: file, Line: p.node.Line, Field: p.field + ".disable-cooling", Value: "",
				Bound: "disable-cooling per provider, sized to its keys",
				Message: fmt.Sprintf("disable-cooling: true at line %d turns cooling off for provider %s too, so a failing key stays in service; %s: set disable-cooling per provider, true only where a provider has a single key",
					global.Line, p.name, RotationNote(p.name, n))})
		}
	}
	gateway.Sort(out)
	return out, nil
}

// singleMessage is the reason of a single-key-cooling finding.
func (p provider) singleMessage(pool int) string {
	if len(p.keys) == 1 {
		return fmt.Sprintf("provider %s has one API key and cooling on: one upstream 5xx makes the gateway refuse every request for the cooldown; %s",
			p.name, SingleKeyFix(p.name, p.keyField()))
	}
	return fmt.Sprintf("provider %s has %d API keys, fewer than a pool of %d, and cooling on: %d upstream 5xx make the gateway refuse every request for the cooldown", p.name, len(p.keys), pool, len(p.keys))
}

// keyField names where a single-key provider turns cooling off.
func (p provider) keyField() string {
	if p.own == nil && !strings.HasPrefix(p.field, "openai-compatibility") {
		return p.field + "[0].disable-cooling"
	}
	return p.field + ".disable-cooling"
}

// cooling reports whether some key of p has cooling on, given the
// top-level switch.
func (p provider) cooling(global *yaml.Node) bool {
	for _, k := range p.keys {
		v := get(k, "disable-cooling")
		if v == nil {
			v = p.own
		}
		if v == nil {
			v = global
		}
		if !isTrue(v) {
			return true
		}
	}
	return false
}

// inherits reports whether some key of p takes disable-cooling from the
// top level: neither the key nor the provider sets it.
func (p provider) inherits() bool {
	if p.own != nil {
		return false
	}
	for _, k := range p.keys {
		if get(k, "disable-cooling") == nil {
			return true
		}
	}
	return false
}

func scalar(n *yaml.Node) string {
	if n == nil || n.Kind != yaml.ScalarNode {
		return ""
	}
	return n.Value
}
