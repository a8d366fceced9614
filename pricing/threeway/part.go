package threeway

import (
	"sort"

	"github.com/shopspring/decimal"
)

// PartKind names one part of a three-way gap.
type PartKind uint8

// Parts of a three-way gap.
const (
	// PartRecordedVsTariff: the tariff's cost of the gateway's tokens
	// minus what the gateway recorded (the plain reconcile gap).
	PartRecordedVsTariff PartKind = iota
	// PartMissingUsage: the tariff's cost of the tokens and requests the
	// provider counted beyond the gateway's log.
	PartMissingUsage
	// PartUnknownUsage: the same for usage the gateway logged beyond what
	// the provider counted (negative).
	PartUnknownUsage
	// PartTariffDrift: billed minus the tariff's cost of the provider's
	// tokens: the tariff file is wrong or out of date.
	PartTariffDrift
	// PartBilledVsGatewayTokens: billed minus the tariff's cost of the
	// gateway's tokens, where the provider's tokens are not known or
	// cannot be priced at one rate set (a bucket spanning periods).
	PartBilledVsGatewayTokens
	// PartUnattributed: billed for no model: the cost export was not
	// grouped by model (line item, description).
	PartUnattributed
	// PartUnbilled: the tariff's cost of the provider's tokens of a cell
	// the cost exports bill nothing for (negative).
	PartUnbilled
	numPartKinds
)

var partNames = [numPartKinds]string{"recorded_vs_tariff", "missing_usage", "unknown_usage", "tariff_drift",
	"billed_vs_gateway_tokens", "unattributed_billing", "unbilled_usage"}

// String returns the part's name as reports spell it.
func (k PartKind) String() string { return partNames[k] }

// Part is one part of a gap.
type Part struct {
	Kind   PartKind
	Amount decimal.Decimal
}

// appendPart appends a part of amount, unless it is zero.
func appendPart(parts []Part, k PartKind, amount decimal.Decimal) []Part {
	if amount.IsZero() {
		return parts
	}
	return append(parts, Part{Kind: k, Amount: amount})
}

// mergeParts adds parts into sums by kind, in the order of the kinds.
func mergeParts(sums, parts []Part) []Part {
	for _, p := range parts {
		i := sort.Search(len(sums), func(i int) bool { return sums[i].Kind >= p.Kind })
		if i < len(sums) && sums[i].Kind == p.Kind {
			sums[i].Amount = sums[i].Amount.Add(p.Amount)
			continue
		}
		sums = append(sums, Part{})
		copy(sums[i+1:], sums[i:])
		sums[i] = p
	}
	return sums
}
