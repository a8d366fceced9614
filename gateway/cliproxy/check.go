package cliproxy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/tokenfare/tokenfare/gateway"
)

// RuleSingleKeyCooling names the rule findings carry.
const RuleSingleKeyCooling = "single-key-cooling"

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

var yamlLine = regexp.MustCompile(`line (\d+): (.*)`)

func parse(file string, data []byte) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &ParseError{File: file, Msg: "file is empty"}
		}
		if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
			n, _ := strconv.Atoi(m[1])
			return nil, &ParseError{File: file, Line: n, Msg: m[2]}
		}
		return nil, &ParseError{File: file, Msg: strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, &ParseError{File: file, Line: doc.Line, Msg: "top level is not a mapping"}
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

// Check returns a finding for every provider with exactly one API key and
// cooling on (disable-cooling unset or false at every level, and
// transient-error-cooldown-seconds not negative): one upstream 5xx then
// makes the gateway refuse every request for that provider for the
// cooldown.
func Check(file string, data []byte) ([]gateway.Finding, error) {
	root, err := parse(file, data)
	if err != nil {
		return nil, err
	}
	if isTrue(get(root, "disable-cooling")) {
		return nil, nil
	}
	if t := get(root, "transient-error-cooldown-seconds"); t != nil && strings.HasPrefix(t.Value, "-") {
		return nil, nil
	}
	var out []gateway.Finding
	add := func(provider string, n *yaml.Node, field, value string) {
		out = append(out, gateway.Finding{Rule: RuleSingleKeyCooling, Severity: gateway.Problem, ModelName: provider,
			File: file, Line: n.Line, Field: field, Value: value, Bound: "two keys or more, or disable-cooling: true",
			Message: fmt.Sprintf("provider %s has one API key and cooling on: one upstream 5xx makes the gateway refuse every request for the cooldown", provider)})
	}
	for _, sec := range keyed {
		list := get(root, sec)
		if list == nil || list.Kind != yaml.SequenceNode || len(list.Content) != 1 {
			continue
		}
		e := list.Content[0]
		if !isTrue(get(e, "disable-cooling")) {
			add(strings.TrimSuffix(sec, "-api-key"), e, sec+"[0].disable-cooling", scalar(get(e, "disable-cooling")))
		}
	}
	if list := get(root, "openai-compatibility"); list != nil && list.Kind == yaml.SequenceNode {
		for i, e := range list.Content {
			keys := get(e, "api-key-entries")
			if keys == nil {
				keys = get(e, "api-keys")
			}
			if keys == nil || keys.Kind != yaml.SequenceNode || len(keys.Content) != 1 {
				continue
			}
			if isTrue(get(e, "disable-cooling")) || isTrue(get(keys.Content[0], "disable-cooling")) {
				continue
			}
			add(scalar(get(e, "name")), e, fmt.Sprintf("openai-compatibility[%d].disable-cooling", i), scalar(get(e, "disable-cooling")))
		}
	}
	gateway.Sort(out)
	return out, nil
}

func scalar(n *yaml.Node) string {
	if n == nil || n.Kind != yaml.ScalarNode {
		return ""
	}
	return n.Value
}
