package ledger

import (
	"time"

	"github.com/shopspring/decimal"
)

// Aggregate is a group of calls a database summed: calls of one model name, host,
// status and grouping whose billing instants lie between two instants that
// no tariff boundary separates, and whose prompts fall in one band of
// prompt-size tier boundaries. Pricing it is exact when no tariff boundary
// falls between its first and last billing instants: every call of the
// group has the same quote, and costs are linear in token counts.
type Aggregate struct {
	Gateway    Gateway
	First      time.Time // the earliest billing instant of the group's calls, UTC
	Last       time.Time // the latest, UTC
	Model      string
	ModelGroup string
	Host       string // as Call.Host
	PriceKey   string // as Call.PriceKey
	Status     Status
	// Prompt is a prompt size inside the group's band: every call's prompt
	// lies in the same tier of every tariff version.
	Prompt   int64
	Key      string // hashed key, when grouped by key
	KeyAlias string // the first alias in byte order among the group's calls
	Team     string
	User     string
	Tags     string // as Call.Tags, when grouped by tags
	KeyMeta  string // as Call.KeyMeta, when grouped by the key's metadata
	Calls    int64
	Tokens   Tokens   // sums over the calls
	Tools    ToolUses // sums over the calls
	// ServiceTier and Region are those of every call of the group.
	ServiceTier ServiceTier
	Region      string
	Recorded    decimal.Decimal // sum of the recorded spends
	ZeroSpend   bool            // every call of the group recorded zero spend
}
