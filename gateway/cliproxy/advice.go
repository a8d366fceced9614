package cliproxy

import "fmt"

// The words of the one rule on disable-cooling, shared by check's
// findings and the fixes failures gives its episodes, so that both say
// the same thing under the same rule (RuleSingleKeyCooling).

// SingleKeyFix is the change a provider that holds one key with cooling
// on calls for: field is where its block sets disable-cooling
// ("claude-api-key[0].disable-cooling").
func SingleKeyFix(provider, field string) string {
	return fmt.Sprintf("set disable-cooling: true on provider %s's block (%s), never globally, or add a second key", provider, field)
}

// RotationNote is what a provider of keys API keys needs of its
// cooldown: nothing changed.
func RotationNote(provider string, keys int) string {
	return fmt.Sprintf("provider %s holds %d keys: its cooldown is the rotation that takes a failing key out; leave cooling on", provider, keys)
}
