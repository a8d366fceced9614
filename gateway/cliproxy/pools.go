package cliproxy

import (
	"strconv"
	"time"
)

// Pool is one provider of a config and the API keys that serve it.
type Pool struct {
	Name    string // "claude", "gemini", …, or an openai-compatibility entry's name
	Keys    int
	Cooling bool // some key of it is rested after a failure
	Line    int
	Field   string // "claude-api-key", "openai-compatibility[0]"
	// CoolingField is where the provider's block turns cooling off, as
	// check's single-key-cooling finding names it.
	CoolingField string
}

// Pools returns the config's providers with keys, in file order, and the
// rest after a transient error it sets (transient-error-cooldown-seconds;
// 0 when unset: the gateway's one minute).
func Pools(file string, data []byte) ([]Pool, time.Duration, error) {
	root, err := parse(file, data)
	if err != nil {
		return nil, 0, err
	}
	global := get(root, "disable-cooling")
	var rest time.Duration
	transientOff := false
	if t := get(root, "transient-error-cooldown-seconds"); t != nil {
		if n, err := strconv.Atoi(t.Value); err == nil {
			transientOff = n < 0
			if n > 0 {
				rest = time.Duration(n) * time.Second
			}
		}
	}
	var out []Pool
	for _, p := range providers(root) {
		out = append(out, Pool{Name: p.name, Keys: len(p.keys), Cooling: !transientOff && p.cooling(global), Line: p.node.Line, Field: p.field,
			CoolingField: p.keyField()})
	}
	return out, rest, nil
}
