package ledger

import (
	"time"

	"github.com/shopspring/decimal"
)

// Aggregate is a group of calls a database summed: calls of one model name,
// status and grouping whose billing instants fall in one span of time (a
// minute or an hour) and whose prompts fall in one band of prompt-size tier
// boundaries. Pricing it is exact when no tariff boundary falls inside the
// span: every call of the group has the same quote, and costs are linear in
// token counts.
type Aggregate struct {
	Gateway    Gateway
	Start      time.Time     // start of the span of the billing instants, UTC
	Span       time.Duration // time.Minute or time.Hour
	Model      string
	ModelGroup string
	Status     Status
	// Prompt is a prompt size inside the group's band: every call's prompt
	// lies in the same tier of every tariff version.
	Prompt    int64
	Key       string // hashed key, when grouped by key
	KeyAlias  string // the first alias in byte order among the group's calls
	Team      string
	User      string
	Calls     int64
	Tokens    Tokens          // sums over the calls
	Recorded  decimal.Decimal // sum of the recorded spends
	ZeroSpend bool            // every call of the group recorded zero spend
}
