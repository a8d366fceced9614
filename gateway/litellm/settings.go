package litellm

import (
	"strconv"

	"gopkg.in/yaml.v3"
)

// setting is a router setting as LiteLLM reads it: the section it was
// read from and its key and value nodes. The zero setting is a key set
// nowhere.
type setting struct {
	section  string // "router_settings" or "litellm_settings"
	key, val *yaml.Node
}

// set reports whether the setting was found.
func (s setting) set() bool { return s.key != nil }

// field returns the dotted name of the setting, e.g. "router_settings.num_retries".
func (s setting) field() string { return s.section + "." + s.key.Value }

// int returns the setting as an integer, or false when it is not one.
func (s setting) int() (int, bool) {
	if !s.set() || s.val.Kind != yaml.ScalarNode {
		return 0, false
	}
	n, err := strconv.Atoi(s.val.Value)
	return n, err == nil
}

// fromLitellmSettings are the router settings LiteLLM also reads from
// litellm_settings. The proxy sets every key of litellm_settings on the
// litellm module, and the Router falls back to the module's num_retries,
// allowed_fails, fallbacks, context_window_fallbacks,
// content_policy_fallbacks and default_fallbacks when its own argument
// (from router_settings) is unset. It has no such fallback for
// cooldown_time, retry_policy, model_group_retry_policy or
// model_group_alias: there those keys are ignored.
var fromLitellmSettings = map[string]bool{
	"num_retries": true, "allowed_fails": true, "fallbacks": true, "context_window_fallbacks": true,
	"content_policy_fallbacks": true, "default_fallbacks": true,
}

// lists are the settings the Router takes with Python's "or": an empty
// list in router_settings counts as unset.
var lists = map[string]bool{
	"fallbacks": true, "context_window_fallbacks": true, "content_policy_fallbacks": true, "default_fallbacks": true,
}

// routerSetting returns key as the Router reads it: from router_settings
// when set there (non-null; for a list, non-empty), else from
// litellm_settings for the keys LiteLLM accepts there.
func (c *Config) routerSetting(key string) setting {
	sections := []string{"router_settings"}
	if fromLitellmSettings[key] {
		sections = append(sections, "litellm_settings")
	}
	for _, sec := range sections {
		k, v := lookup(c.section(sec), key)
		if k == nil || v.Tag == "!!null" {
			continue
		}
		if lists[key] && (v.Kind != yaml.SequenceNode || len(v.Content) == 0) {
			continue
		}
		return setting{section: sec, key: k, val: v}
	}
	return setting{}
}

// deploymentSetting returns key from an entry's litellm_params, where
// LiteLLM lets a deployment override num_retries and cooldown_time.
func (e *Entry) deploymentSetting(key string) setting {
	return entrySetting("litellm_params", e.params, key)
}

// infoSetting returns key from an entry's model_info, where newer LiteLLM
// reads a deployment's cooldown_time.
func (e *Entry) infoSetting(key string) setting {
	return entrySetting("model_info", e.info, key)
}

func entrySetting(section string, m *yaml.Node, key string) setting {
	k, v := lookup(m, key)
	if k == nil || v.Tag == "!!null" {
		return setting{}
	}
	return setting{section: section, key: k, val: v}
}

// cooldownTimes returns the cooldown_time values that may apply to a
// deployment. LiteLLM versions differ on where a deployment overrides the
// Router's: older ones read litellm_params.cooldown_time, newer ones
// model_info.cooldown_time. Each place the deployment sets counts, and
// the Router's value (router_settings) stands in for a place it does not.
func (c *Config) cooldownTimes(e *Entry) []setting {
	router := c.routerSetting("cooldown_time")
	var out []setting
	seen := map[*yaml.Node]bool{}
	for _, s := range []setting{e.deploymentSetting("cooldown_time"), e.infoSetting("cooldown_time")} {
		if !s.set() {
			s = router
		}
		if s.set() && !seen[s.val] {
			seen[s.val] = true
			out = append(out, s)
		}
	}
	return out
}

// fallbackKinds are the fallback settings, in the order they are read.
var fallbackKinds = []string{"fallbacks", "context_window_fallbacks", "content_policy_fallbacks"}

// edge is one fallback: requests of group from may go to group to.
type edge struct {
	from, to string
	key      string // the setting's key, e.g. "fallbacks"
	field    string // where it was read, e.g. "router_settings.fallbacks"
	line     int    // the line of the target
}

// fallbackEdges returns every fallback the Router reads, of every kind,
// in file order; default_fallbacks and a "*" key are edges from "*",
// which covers every group.
func (c *Config) fallbackEdges() []edge {
	var out []edge
	for _, kind := range fallbackKinds {
		s := c.routerSetting(kind)
		if !s.set() {
			continue
		}
		for _, item := range s.val.Content {
			item = deref(item)
			for i := 0; item.Kind == yaml.MappingNode && i+1 < len(item.Content); i += 2 {
				for _, t := range targets(item.Content[i+1]) {
					out = append(out, edge{from: item.Content[i].Value, to: t.Value, key: kind, field: s.field(), line: t.Line})
				}
			}
		}
	}
	if s := c.routerSetting("default_fallbacks"); s.set() {
		for _, t := range targets(s.val) {
			out = append(out, edge{from: "*", to: t.Value, key: "default_fallbacks", field: s.field(), line: t.Line})
		}
	}
	return out
}

// targets returns the scalar nodes of a fallback list (or a lone scalar).
func targets(n *yaml.Node) []*yaml.Node {
	n = deref(n)
	if n == nil {
		return nil
	}
	if n.Kind == yaml.ScalarNode {
		return []*yaml.Node{n}
	}
	var out []*yaml.Node
	for _, c := range n.Content {
		if c = deref(c); c.Kind == yaml.ScalarNode {
			out = append(out, c)
		}
	}
	return out
}

// alias is one public name that routes to a model group.
type alias struct {
	name, group string
	field       string
	line        int
}

// aliases returns the names that route to a model group: the Router's
// model_group_alias (router_settings; a value is a group or a mapping
// with model and hidden) and the proxy's model_alias_map
// (litellm_settings), which renames a request's model before routing.
func (c *Config) aliases() []alias {
	var out []alias
	for _, src := range []struct{ sec, key string }{{"router_settings", "model_group_alias"}, {"litellm_settings", "model_alias_map"}} {
		_, m := lookup(c.section(src.sec), src.key)
		if m == nil || m.Kind != yaml.MappingNode {
			continue
		}
		for i := 0; i+1 < len(m.Content); i += 2 {
			v := deref(m.Content[i+1])
			if v.Kind == yaml.MappingNode {
				_, v = lookup(v, "model")
			}
			if v == nil || v.Kind != yaml.ScalarNode {
				continue
			}
			out = append(out, alias{name: m.Content[i].Value, group: v.Value, field: src.sec + "." + src.key, line: v.Line})
		}
	}
	return out
}

// groups returns the deployments of each model group and the first
// entry of each group, in file order.
func (c *Config) groups() (map[string][]*Entry, []*Entry) {
	groups := map[string][]*Entry{}
	var first []*Entry
	for _, e := range c.Entries {
		if groups[e.ModelName] == nil {
			first = append(first, e)
		}
		groups[e.ModelName] = append(groups[e.ModelName], e)
	}
	return groups, first
}
