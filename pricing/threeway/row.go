package threeway

import (
	"time"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

// Row is one time bucket of one model as a provider counted or billed it,
// in the reconciliation's terms: whatever an export's wire format says has
// been read into these fields by its reader.
type Row struct {
	// Provider is the tariff provider whose figures these are (openai,
	// anthropic, deepseek): the cell's provider when the model is not in
	// the catalog.
	Provider   string
	Start, End time.Time // the bucket, [Start, End), within one UTC day
	Model      string    // as the provider names it; "" when the export is not grouped by model
	Key        string    // the key's hash, comparable with ledger.Call.Key; "" when the export has none
	// PromptSize is a prompt size, in tokens, in the same prompt-size tier
	// as every request of the row; 0 when the export does not say, for the
	// base tier.
	PromptSize int64
	// ServiceTier and Region are the row's, when the export tells them
	// apart: its official cost is at that tier's and region's rates.
	ServiceTier tariffs.ServiceTier
	Region      string

	// Usage: quantities by usage type (Input uncached, Output including
	// reasoning), at tariffs.Request the number of requests.
	Qty         pricing.Quantities
	HasTokens   bool // the row reports usage
	HasRequests bool // the row reports a request count

	// Billing says whether and how the row bills its usage: Billed is the
	// row's amount, ByUsage its parts when BilledByUsage.
	Billing  Billing
	Billed   decimal.Decimal
	ByUsage  [tariffs.NumUsage]decimal.Decimal
	Currency string // upper-case ISO 4217, when billed

	Where string // the row's place in its file, for messages
}

// Billing says how a provider row bills its usage.
type Billing uint8

// Billings, in the order a cell's drifts list them.
const (
	NotBilled     Billing = iota // usage only
	BilledByUsage                // an amount per usage type
	BilledInTotal                // one amount for the row's whole usage
	numBillings
)

var billingNames = [numBillings]string{"not billed", "billed by usage", "billed in total"}

// String names the billing.
func (b Billing) String() string { return billingNames[b] }

// billed reports whether the row bills anything.
func (r *Row) billed() bool { return r.Billing != NotBilled }

// outside reports whether the row's bucket lies wholly outside the window
// [since, until); a zero bound is open.
func (r *Row) outside(since, until time.Time) bool {
	return (!since.IsZero() && !r.End.After(since)) || (!until.IsZero() && !r.Start.Before(until))
}
