package ledger

import (
	"fmt"
	"strings"
)

// Tool is a server-side tool a provider bills per use.
type Tool uint8

// Tools billed per use. The numbering follows tariffs' tool usage types.
const (
	WebSearch  Tool = iota // a web search (Anthropic, OpenAI), grounding with Google Search (Gemini), DeepSeek Search
	WebFetch               // a page fetched (DeepSeek Fetch, Anthropic web fetch)
	FileSearch             // an OpenAI file search call
	NumTools   = int(FileSearch) + 1
)

var toolNames = [NumTools]string{"web_search", "web_fetch", "file_search"}

// String returns the tool's name, as tariff files write it.
func (t Tool) String() string {
	if int(t) < NumTools {
		return toolNames[t]
	}
	return fmt.Sprintf("tool(%d)", t)
}

// ToolUses counts the uses of each tool by one call, or by many.
type ToolUses [NumTools]int64

// Any reports whether any tool was used.
func (u *ToolUses) Any() bool { return *u != ToolUses{} }

// ServiceTier is the processing tier a call was served in.
type ServiceTier uint8

// Service tiers. The numbering follows tariffs.ServiceTier.
const (
	TierStandard ServiceTier = iota
	TierBatch
	TierFlex
	TierPriority
	NumServiceTiers = int(TierPriority) + 1
)

var tierNames = [NumServiceTiers]string{"standard", "batch", "flex", "priority"}

// String returns "standard", "batch", "flex" or "priority".
func (s ServiceTier) String() string {
	if int(s) < NumServiceTiers {
		return tierNames[s]
	}
	return fmt.Sprintf("service_tier(%d)", s)
}

// TierSource says where a call's ServiceTier comes from.
type TierSource uint8

// Sources of a call's service tier.
const (
	// TierNotLogged: nothing logged names a tier; the call is standard.
	TierNotLogged TierSource = iota
	// TierServed: the tier that served the call, as the provider reported
	// it (the stored response's service_tier, the usage object's, a
	// flat export's column, CLIProxyAPI's response_service_tier).
	TierServed
	// TierAsked: only the request was stored: the call is priced at the
	// tier it asked for, which the provider may not have served.
	TierAsked
)

// ParseServiceTier reads a service tier as gateways log it, without regard
// to case. The providers' names for the standard tier ("default", "auto",
// "standard", "standard_only", "on_demand") and an empty value are
// TierStandard; "fast" is TierPriority: OpenAI renamed priority
// processing Fast mode on 2026-07-30 and takes either name, at the same
// prices (https://openai.com/api-fast-mode/, checked 2026-12-01), as
// LiteLLM prices it with its _priority keys. "scale" (OpenAI's reserved
// capacity) is not a tier tokenfare prices: ok is false for it and for any
// other value.
func ParseServiceTier(s string) (tier ServiceTier, ok bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "default", "auto", "standard", "standard_only", "on_demand":
		return TierStandard, true
	case "batch":
		return TierBatch, true
	case "flex":
		return TierFlex, true
	case "priority", "fast":
		return TierPriority, true
	}
	return TierStandard, false
}
