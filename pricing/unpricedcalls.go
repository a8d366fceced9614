package pricing

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/tariffs"
)

// UnpricedCause says why calls of a model have no price.
type UnpricedCause uint8

// Causes of unpriced calls, from what the catalog says of their model.
const (
	// CauseNotInCatalog: no list of the catalog names the model, on any host.
	CauseNotInCatalog UnpricedCause = iota
	// CauseNotOnHost: the catalog prices the model, but not on the host
	// the calls name (UnpricedCalls.PricedOn says where it does).
	CauseNotOnHost
	// CauseNotYetPriced: the model is known, and the calls are billed
	// before the first version that prices it (or no version does). A
	// version cannot drop a model without retiring it (tariffs.Validate).
	CauseNotYetPriced
	// CauseRetired: a version in force had retired the model.
	CauseRetired
	numCauses
)

var causeNames = [numCauses]string{"not_in_catalog", "not_on_host", "not_yet_priced", "retired"}

// String returns the cause as reports spell it, e.g. "not_on_host".
func (c UnpricedCause) String() string { return causeNames[c] }

// HostPrice is a host whose lists price a model the calls' own host does
// not, and whether that price rests on secondary sources only.
type HostPrice struct {
	Host      string
	Secondary bool
}

// UnpricedCalls are the calls of one model, on one host, left without a
// price for one cause, summed over the run: what the gateway recorded for
// them is part of the gap, and the cause says what would price them.
type UnpricedCalls struct {
	Model string // the tariff model id, or the name logged when no tariff knows it
	// Host is the host the calls name (the host their name was looked up
	// among): "" for calls of a known model and for first-party names.
	Host string
	// HostPriced is false when no tariff of the catalog prices Host at all:
	// such calls are explained by host (unpriced_host).
	HostPriced bool
	Cause      UnpricedCause
	Calls      int64
	Recorded   decimal.Decimal
	// PricedOn lists, for CauseNotOnHost, the hosts whose lists price the
	// model, in name order.
	PricedOn []HostPrice
	// Version is the version that retired the model (CauseRetired) or the
	// first that prices it (CauseNotYetPriced; "" when none does); Since is
	// when that version took effect.
	Version string
	Since   time.Time
	// Secondary: the model's tariff rests on secondary sources only (an
	// imported peer table), for a known model.
	Secondary bool
}

// Outcome is the outcome of the calls: Retired, else Unpriced.
func (u *UnpricedCalls) Outcome() Outcome {
	if u.Cause == CauseRetired {
		return Retired
	}
	return Unpriced
}

// Detail says in a sentence which calls these are and why they have no
// price.
func (u *UnpricedCalls) Detail() string {
	return fmt.Sprintf("%d call(s) of %s%s: %s; the gateway recorded %s for them", u.Calls, u.Model, u.onHost(), u.why(), u.Recorded)
}

// onHost names the host the calls name, if any.
func (u *UnpricedCalls) onHost() string {
	if u.Host == "" {
		return ""
	}
	return " on host " + u.Host
}

// why is the cause in words.
func (u *UnpricedCalls) why() string {
	when := func(t time.Time) string { return t.UTC().Format(time.RFC3339) }
	switch u.Cause {
	case CauseNotOnHost:
		return fmt.Sprintf("%s; the catalog prices it on %s", u.hostTariff(), hostsText(u.PricedOn))
	case CauseNotYetPriced:
		if u.Version == "" {
			return "its tariff lists it, but no version prices it" + u.secondaryText()
		}
		return fmt.Sprintf("billed before its first price, version %s in force from %s%s", u.Version, when(u.Since), u.secondaryText())
	case CauseRetired:
		return fmt.Sprintf("its provider retired it at %s (version %s)%s", when(u.Since), u.Version, u.secondaryText())
	}
	if u.Host != "" && !u.HostPriced {
		return "no tariff prices host " + u.Host + ", and no list of the catalog names the model"
	}
	return "no list of the catalog names the model, on any host"
}

// hostTariff says what the catalog has of the calls' host.
func (u *UnpricedCalls) hostTariff() string {
	if !u.HostPriced {
		return "no tariff prices host " + u.Host
	}
	if u.Host == "" {
		return "no first-party list names it"
	}
	return "the tariffs of host " + u.Host + " do not list it"
}

func (u *UnpricedCalls) secondaryText() string {
	if u.Secondary {
		return "; its tariff rests on secondary sources only (an imported table)"
	}
	return ""
}

// hostsText lists hosts, each secondary one marked.
func hostsText(hs []HostPrice) string {
	parts := make([]string, len(hs))
	for i, h := range hs {
		parts[i] = h.Host
		if h.Secondary {
			parts[i] += " (a price resting on secondary sources only: an imported table)"
		}
	}
	return strings.Join(parts, ", ")
}

// Hint says what would price the calls.
func (u *UnpricedCalls) Hint() string {
	overlay := "--tariffs-overlay DIR"
	switch u.Cause {
	case CauseNotOnHost:
		if u.Host == "" {
			return fmt.Sprintf("have the gateway log the host it routed the calls to (e.g. %s/%s), or list %s in a first-party tariff file (%s)",
				u.PricedOn[0].Host, u.Model, u.Model, overlay)
		}
		return fmt.Sprintf("give host %s a price for %s in a tariff file with hosts: [%s] (%s), or route the calls to a host that prices it",
			u.Host, u.Model, u.Host, overlay)
	case CauseNotYetPriced:
		return "check the calls' billing instants; if the provider billed them, add the version in force then to its tariff file (" + overlay + ")"
	case CauseRetired:
		return fmt.Sprintf("route the gateway's calls of %s to a model the catalog prices; if the provider still bills it, price it in a version after %s (%s)",
			u.Model, u.Version, overlay)
	}
	return "price it knowingly from a peer table: tokenfare tariffs import TABLE --out DIR, then " + overlay +
		"; or write its tariff file (docs/tariffs.md)"
}

// UnpricedCalls returns the run's calls left without a price, unpriced
// and retired, by model, host and cause, in order of model, host and
// cause: one entry for each, with its calls and recorded spend.
func (e *Engine) UnpricedCalls() []UnpricedCalls {
	type key struct {
		model, host string
		cause       UnpricedCause
		version     string
	}
	byKey := map[key]*UnpricedCalls{}
	sums := map[key]*ExactSum{}
	for _, b := range e.table.buckets.all() {
		if b.k.outcome != Unpriced && b.k.outcome != Retired {
			continue
		}
		u := e.unpricedOf(&b.k)
		k := key{u.Model, u.Host, u.Cause, u.Version}
		if byKey[k] == nil {
			byKey[k], sums[k] = &u, &ExactSum{}
		}
		byKey[k].Calls += b.Calls
		sums[k].merge(&b.recorded)
	}
	out := make([]UnpricedCalls, 0, len(byKey))
	for k, u := range byKey {
		u.Recorded = sums[k].Value()
		out = append(out, *u)
	}
	out = foldUnpriced(out, MaxUnpricedListed)
	slices.SortFunc(out, func(a, b UnpricedCalls) int {
		return cmp.Or(strings.Compare(a.Model, b.Model), strings.Compare(a.Host, b.Host), cmp.Compare(a.Cause, b.Cause),
			strings.Compare(a.Version, b.Version))
	})
	return out
}

// unpricedOf says why the calls of an unpriced or retired bucket have no
// price, with no calls or spend yet.
func (e *Engine) unpricedOf(k *bucketKey) UnpricedCalls {
	if k.model == nil {
		return UnpricedCallsOn(e.cat, e.table.labels.of(k.unknown), e.table.labels.of(k.host))
	}
	return UnpricedCallsOf(k.model, k.version, k.outcome)
}

// UnpricedCallsOn says why calls logged under name on host (the host the
// name was looked up among, "" for the first-party lists), which no list
// of cat prices there, have no price. The calls and spend are left zero.
func UnpricedCallsOn(cat *tariffs.Catalog, name, host string) UnpricedCalls {
	u := UnpricedCalls{Model: name, Host: host, HostPriced: cat.PricesHost(host), Recorded: decimal.Zero}
	u.PricedOn = pricedOn(cat, name, host)
	if len(u.PricedOn) > 0 {
		u.Cause = CauseNotOnHost
	}
	return u
}

// pricedOn returns the hosts other than host whose lists price name.
func pricedOn(cat *tariffs.Catalog, name, host string) []HostPrice {
	var out []HostPrice
	for _, hm := range cat.HostsOf(name) {
		if hm.Host != host {
			out = append(out, HostPrice{Host: hm.Host, Secondary: hm.Model.Provider.Secondary()})
		}
	}
	return out
}

// UnpricedCallsOf says why calls of a known model m, billed while version
// v was in force (nil: before its provider's first version), have no
// price; outcome is Retired or Unpriced. The calls and spend are left
// zero.
func UnpricedCallsOf(m *tariffs.Model, v *tariffs.Version, outcome Outcome) UnpricedCalls {
	u := UnpricedCalls{Model: m.ID, HostPriced: true, Cause: CauseNotYetPriced, Secondary: m.Provider.Secondary(), Recorded: decimal.Zero}
	if outcome == Retired {
		u.Cause = CauseRetired
		if by := m.RetiredBy(v); by != nil {
			u.Version, u.Since = by.Name, by.Effective
		}
		return u
	}
	if after := m.FirstPricedAfter(v); after != nil {
		u.Version, u.Since = after.Name, after.Effective
	}
	return u
}

// MaxUnpricedListed bounds the entries Engine.UnpricedCalls lists: past
// it, the entries with the fewest calls are summed by cause under
// OtherNames, so a log of a million distinct unknown names is not listed
// name by name (the explanations and groups still carry every name within
// the budget of names).
const MaxUnpricedListed = 1000

// foldUnpriced keeps the max entries with the most calls (then by model)
// and sums the rest by cause into one entry each, named OtherNames.
func foldUnpriced(us []UnpricedCalls, max int) []UnpricedCalls {
	if len(us) <= max {
		return us
	}
	slices.SortFunc(us, func(a, b UnpricedCalls) int {
		return cmp.Or(cmp.Compare(b.Calls, a.Calls), strings.Compare(a.Model, b.Model), strings.Compare(a.Host, b.Host))
	})
	kept, rest := us[:max:max], us[max:]
	byCause := map[UnpricedCause]int{}
	for _, u := range rest {
		i, ok := byCause[u.Cause]
		if !ok {
			i = len(kept)
			byCause[u.Cause] = i
			kept = append(kept, UnpricedCalls{Model: OtherNames, Cause: u.Cause, HostPriced: true, Recorded: decimal.Zero})
		}
		kept[i].Calls += u.Calls
		kept[i].Recorded = kept[i].Recorded.Add(u.Recorded)
	}
	return kept
}
