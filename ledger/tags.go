package ledger

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// TagSep joins a call's tags in Call.Tags: a control character no tag
// holds.
const TagSep = "\x1f"

// SplitTags returns the tags of Call.Tags; none for "".
func SplitTags(tags string) []string {
	if tags == "" {
		return nil
	}
	return strings.Split(tags, TagSep)
}

// userAgentTag is how LiteLLM marks the tag it adds with the client's
// User-Agent header (unless disable_add_user_agent_to_request_tags).
const userAgentTag = "User-Agent: "

// ParseTags reads request_tags as LiteLLM logs them, a JSON array of
// strings (empty, [] and null: no tag), into Call.Tags's form; false when
// raw is no such array.
func ParseTags(raw []byte) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return "", true
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil {
		return "", false
	}
	kept := list[:0]
	for _, t := range list {
		if t = strings.TrimSpace(t); t != "" && !strings.HasPrefix(t, userAgentTag) && !strings.Contains(t, TagSep) {
			kept = append(kept, t)
		}
	}
	slices.Sort(kept)
	return strings.Join(slices.Compact(kept), TagSep), true
}

// tagsOf reads request_tags as LiteLLM logs them: a JSON array of strings
// (empty, [] and null: no tag). It returns why the value cannot be read,
// or "" with the tags set.
func (p *rowParser) tagsOf(raw []byte, tags *string) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("[]")) || bytes.Equal(raw, []byte("null")) {
		return ""
	}
	if t, ok := p.tags[string(raw)]; ok {
		*tags = t
		return ""
	}
	t, ok := ParseTags(raw)
	if !ok {
		return badValue("request_tags", string(raw), "a JSON array of strings")
	}
	if p.tags == nil {
		p.tags = map[string]string{}
	}
	if len(p.tags) < 1<<12 { // a bounded cache: most gateways have few tag sets
		p.tags[string(raw)] = t
	}
	*tags = t
	return ""
}
