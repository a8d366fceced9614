package drift

import (
	"regexp"
	"strings"

	"github.com/tokenfare/tokenfare/tariffs"
)

// Suffixes and prefixes that name a snapshot or a route of a model rather
// than another model: dated snapshot ids (gpt-4o-2024-08-06,
// claude-sonnet-4-5-20250929, claude-opus-4-6@20260205), Bedrock's model
// version (-v1:0) and its geography and vendor prefixes (us.anthropic.),
// and numbered releases (gemini-2.0-flash-001).
var (
	snapshotSuffix = regexp.MustCompile(`([-@](\d{4}-\d{2}-\d{2}|\d{8}|\d{2}-\d{4}|\d{3,4})|-v\d+(:\d+)?)$`)
	bedrockPrefix  = regexp.MustCompile(`^((us|eu|apac|au|jp|ca|global|us-gov)\.)?(anthropic|deepseek|openai|google|meta)\.`)
)

// baseModel returns the catalog model of e's host that e's name is a snapshot or a route of, when the
// catalog does not know the name itself:
// the name is tried without its leading path segments, then without a
// Bedrock prefix, then without snapshot suffixes, one at a time. nil when
// no form of the name is a catalog name.
func baseModel(cat *tariffs.Catalog, e *Entry) *tariffs.Model {
	name := strings.ToLower(e.Name)
	var forms []string
	for {
		forms = append(forms, name)
		i := strings.IndexByte(name, '/')
		if i < 0 {
			break
		}
		name = name[i+1:]
	}
	if b := bedrockPrefix.ReplaceAllString(name, ""); b != name {
		name = b
		forms = append(forms, name)
	}
	for {
		b := snapshotSuffix.ReplaceAllString(name, "")
		if b == name || b == "" {
			break
		}
		name = b
		forms = append(forms, name)
	}
	for _, f := range forms[1:] {
		if m, _, ok := cat.ResolveOn(e.Host, f); ok {
			return m
		}
	}
	return nil
}
