package reports

import (
	"encoding/json"
	"io"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/reports/jsonout"
	"github.com/tokenfare/tokenfare/tariffs"
)

// The documents below are the stable JSON (and YAML) shapes: their field
// names and order are the contract.

func writeJSON(w io.Writer, v any) error { return jsonout.Write(w, v) }

// ratioText formats a ratio or share with RatioPlaces decimals, "" when it
// is not defined.
func ratioText(r decimal.NullDecimal) string { return string(appendRatio(nil, r)) }

// currencyText names the currencies of a result, joined with "+" when there
// are several.
func currencyText(cs []string) string { return strings.Join(cs, "+") }

type rowsDoc struct {
	Read      int64 `json:"read"`
	Priced    int64 `json:"priced"`
	Unpriced  int64 `json:"unpriced"`
	Retired   int64 `json:"retired"`
	Failed    int64 `json:"failed"`
	Duplicate int64 `json:"duplicate"`
	Rejected  int64 `json:"rejected"`
	Outside   int64 `json:"outside"`
	CacheHit  int64 `json:"cache_hit,omitempty"`
}

type reconciliationDoc struct {
	Rows         rowsDoc          `json:"rows"`
	Currency     string           `json:"currency"`
	Totals       totalsDoc        `json:"totals"`
	By           []string         `json:"by"`
	Groups       []groupDoc       `json:"groups"`
	Explanations []explanationDoc `json:"explanations"`
	Billed       []billedDoc      `json:"billed,omitempty"`
	// FailedByClass splits rows.failed by cause class; absent when no
	// call failed or the run did not classify them.
	FailedByClass *failedSplitDoc `json:"failed_by_class,omitempty"`
	// Unpriced lists the calls left without a price by model, host and
	// cause, with what would price them; absent when every call was priced.
	Unpriced []unpricedDoc `json:"unpriced,omitempty"`
	// DailyTables compare the gateway's daily table with its spend logs;
	// absent without a database that keeps one.
	DailyTables []dailyDoc `json:"daily_tables,omitempty"`
}

type failedSplitDoc struct {
	Upstream int64 `json:"upstream"`
	Gateway  int64 `json:"gateway"`
	Unknown  int64 `json:"unknown"`
}

// failedSplit documents a run's split of failed calls, nil without one.
func failedSplit(f *pricing.FailedSplit, failed int64) *failedSplitDoc {
	if f == nil || failed == 0 {
		return nil
	}
	return &failedSplitDoc{Upstream: f.Upstream, Gateway: f.Gateway, Unknown: f.Unknown}
}

type totalsDoc struct {
	Calls     int64  `json:"calls"`
	Official  string `json:"official"`
	Recorded  string `json:"recorded"`
	Gap       string `json:"gap"`
	Ratio     string `json:"ratio"`
	Explained string `json:"explained"`
}

type groupDoc struct {
	Keys        map[string]string `json:"keys"`
	Calls       int64             `json:"calls"`
	PricedCalls int64             `json:"priced_calls"`
	Tokens      tokensDoc         `json:"tokens"`
	ToolUses    *toolUsesDoc      `json:"tool_uses,omitempty"`
	// CacheHitTokens are the tokens of the calls the gateway's own cache
	// answered: not in tokens, which no provider billed.
	CacheHitTokens int64  `json:"cache_hit_tokens,omitempty"`
	Official       string `json:"official"`
	Recorded       string `json:"recorded"`
	Gap            string `json:"gap"`
	Ratio          string `json:"ratio"`
}

type tokensDoc struct {
	Input        int64 `json:"input"`
	CacheRead    int64 `json:"cache_read"`
	CacheWrite   int64 `json:"cache_write"`
	CacheWrite1h int64 `json:"cache_write_1h,omitempty"`
	Output       int64 `json:"output"`
	Reasoning    int64 `json:"reasoning"`
}

// newTokensDoc is the tokens of t; its tool uses are toolUsesOf's.
func newTokensDoc(t pricing.TokenCounts) tokensDoc {
	return tokensDoc{Input: t.Input, CacheRead: t.CacheRead, CacheWrite: t.CacheWrite, CacheWrite1h: t.CacheWrite1h,
		Output: t.Output, Reasoning: t.Reasoning}
}

// toolUsesDoc counts the uses of each tool.
type toolUsesDoc struct {
	WebSearch  int64 `json:"web_search"`
	WebFetch   int64 `json:"web_fetch"`
	FileSearch int64 `json:"file_search"`
}

// toolUsesOf is the tool uses of t, nil when there are none.
func toolUsesOf(t pricing.TokenCounts) *toolUsesDoc {
	if !t.Tools() {
		return nil
	}
	return &toolUsesDoc{WebSearch: t.WebSearch, WebFetch: t.WebFetch, FileSearch: t.FileSearch}
}

// billedDoc is a modifier: what priced calls were billed beyond plain tokens.
type billedDoc struct {
	What     string `json:"what"`
	Unit     string `json:"unit"`
	Quantity int64  `json:"quantity"`
	Official string `json:"official"`
	Currency string `json:"currency"`
	Unpriced int64  `json:"unpriced"`
}

func billedDocs(ms []pricing.Modifier) []billedDoc {
	var out []billedDoc
	for i := range ms {
		m := &ms[i]
		out = append(out, billedDoc{What: m.What(), Unit: m.Unit(), Quantity: m.Quantity, Official: m.Official.String(),
			Currency: m.Currency, Unpriced: m.Unpriced})
	}
	return out
}

type explanationDoc struct {
	Kind    string `json:"kind"`
	Model   string `json:"model,omitempty"`
	Host    string `json:"host,omitempty"`
	Calls   int64  `json:"calls"`
	Amount  string `json:"amount"`
	Version string `json:"version,omitempty"`
	Period  string `json:"period,omitempty"`
	Rates   string `json:"rates,omitempty"`
	Tokens  int64  `json:"tokens,omitempty"`
	// FirstDay and LastDay bound the local days of the calendar kinds.
	FirstDay string `json:"first_day,omitempty"`
	LastDay  string `json:"last_day,omitempty"`
	Detail   string `json:"detail"`
	// Cause says, for unpriced_model and retired_model, why the calls have
	// no price; Hint, for those and unpriced_host, what would price them.
	Cause string `json:"cause,omitempty"`
	Hint  string `json:"hint,omitempty"`
	// Copies are the values of conflicting copies.
	Copies *copiesDoc `json:"copies,omitempty"`
}

// copiesDoc is what the repeats of one model whose copies disagree said,
// beside what the copies read first said.
type copiesDoc struct {
	Repeats       int64       `json:"repeats"`
	Recorded      string      `json:"recorded"`
	Tokens        int64       `json:"tokens"`
	FirstRecorded string      `json:"first_recorded"`
	FirstTokens   int64       `json:"first_tokens"`
	Examples      []copyExDoc `json:"examples"`
}

// copyExDoc is one repeated identity whose copies disagree.
type copyExDoc struct {
	Identity string     `json:"request_id"`
	Start    string     `json:"start"`
	Source   string     `json:"source"`
	First    copyValDoc `json:"first"`
	Repeat   copyValDoc `json:"repeat"`
}

// copyValDoc is what one copy said.
type copyValDoc struct {
	Model    string `json:"model"`
	Tokens   int64  `json:"tokens"`
	Recorded string `json:"recorded"`
}

// newCopiesDoc returns the document of conflicting copies; nil for none.
func newCopiesDoc(c *pricing.CopyConflicts) *copiesDoc {
	if c == nil {
		return nil
	}
	d := &copiesDoc{Repeats: c.Repeats, Recorded: c.Recorded.String(), Tokens: c.Tokens,
		FirstRecorded: c.FirstRecorded.String(), FirstTokens: c.FirstTokens, Examples: []copyExDoc{}}
	for _, x := range c.Examples {
		ex := copyExDoc{Identity: x.Identity, Start: x.Start.UTC().Format(time.RFC3339Nano), Source: x.Source,
			Repeat: copyValDoc{Model: x.Repeat.Model, Tokens: x.Repeat.Tokens, Recorded: x.Repeat.Recorded.String()}}
		ex.First = copyValDoc{Model: x.First.Model, Tokens: x.First.Tokens, Recorded: x.First.Recorded.String()}
		d.Examples = append(d.Examples, ex)
	}
	return d
}

// newReconciliationDoc returns the document of r, its groups included.
func newReconciliationDoc(r *pricing.Reconciliation) (*reconciliationDoc, error) {
	doc := newReconciliationHead(r)
	for g, err := range r.Groups() {
		if err != nil {
			return nil, err
		}
		doc.Groups = append(doc.Groups, groupDoc{Keys: groupKeys(r.By, g), Calls: g.Calls, PricedCalls: g.PricedCalls,
			Tokens: newTokensDoc(g.Tokens), ToolUses: toolUsesOf(g.Tokens), CacheHitTokens: g.CacheHitTokens,
			Official: g.Official.String(), Recorded: g.Recorded.String(), Gap: g.Gap.String(), Ratio: ratioText(g.Ratio)})
	}
	return doc, nil
}

// newReconciliationHead returns the document of r with an empty list of
// groups.
func newReconciliationHead(r *pricing.Reconciliation) *reconciliationDoc {
	t := r.Totals
	doc := &reconciliationDoc{Rows: rowsDoc(r.Rows), Currency: currencyText(r.Currencies),
		Totals: totalsDoc{Calls: t.Calls, Official: t.Official.String(), Recorded: t.Recorded.String(),
			Gap: t.Gap.String(), Ratio: ratioText(t.Ratio), Explained: t.Explained.String()},
		By: []string{}, Groups: []groupDoc{}, Explanations: []explanationDoc{}, FailedByClass: failedSplit(r.Failed, r.Rows.Failed),
		Unpriced: unpricedDocs(r.Unpriced)}
	for _, d := range r.By {
		doc.By = append(doc.By, d.String())
	}
	doc.Billed = billedDocs(r.Billed)
	doc.DailyTables = newDailyDocs(r.Daily)
	for _, x := range r.Explanations {
		xd := explanationDoc{Kind: x.Kind.String(), Model: x.Model, Host: x.Host, Calls: x.Calls,
			Amount: x.Amount.String(), Version: x.Version, Period: x.Period, Rates: x.RatesOf, Tokens: x.Tokens, Detail: x.Detail, Copies: newCopiesDoc(x.Copies)}
		if x.FirstDay != 0 {
			xd.FirstDay, xd.LastDay = x.FirstDay.String(), x.LastDay.String()
		}
		if x.Unpriced != nil {
			xd.Cause = x.Unpriced.Cause.String()
		}
		xd.Hint = x.Hint()
		doc.Explanations = append(doc.Explanations, xd)
	}
	return doc
}

// keyAliasColumn is the name of the key alias beside the dimensions.
const keyAliasColumn = "key_alias"

// groupKeys names a group in each dimension, with its key's alias when known.
func groupKeys(by []pricing.Dim, g *pricing.Group) map[string]string {
	keys := make(map[string]string, len(by)+1)
	for _, d := range by {
		keys[d.String()] = g.Key.Value(d)
	}
	if g.KeyAlias != "" {
		keys[keyAliasColumn] = g.KeyAlias
	}
	return keys
}

type blendDoc struct {
	AsOf      string  `json:"as_of"`
	From      string  `json:"from"`
	Until     string  `json:"until"`
	TariffAt  string  `json:"tariff_at,omitempty"` // every call priced at the tariff in force then; absent: each at its own version
	Mode      string  `json:"mode"`
	PeakShare string  `json:"peak_share,omitempty"`
	Rows      rowsDoc `json:"rows"`
	// ModelsWithoutCalls is how many models of the catalog had no calls in
	// the window and are not in Models (0 when Models lists them all).
	ModelsWithoutCalls int             `json:"models_without_calls"`
	Models             []blendModelDoc `json:"models"`
}

type blendModelDoc struct {
	Model     string          `json:"model"`
	Provider  string          `json:"provider"`
	Currency  string          `json:"currency"`
	Calls     int64           `json:"calls"`
	Reason    string          `json:"reason,omitempty"`
	Versions  []string        `json:"versions,omitempty"`
	Official  string          `json:"official,omitempty"`
	AtBlended string          `json:"at_blended,omitempty"`
	Prices    []blendPriceDoc `json:"prices,omitempty"`
	LeftOut   []leftOutDoc    `json:"left_out,omitempty"`
	Retired   *retiredDoc     `json:"retired,omitempty"`
}

// retiredDoc says when a model of a blend retired (the version and its
// effective instant) and how many of the window's calls were counted as
// retired.
type retiredDoc struct {
	At      string `json:"at"`
	Version string `json:"version"`
	Calls   int64  `json:"calls"`
}

// leftOutDoc is a part of a model's window its blend leaves out.
type leftOutDoc struct {
	What     string `json:"what"`
	Unit     string `json:"unit"`
	Quantity int64  `json:"quantity"`
	Official string `json:"official"`
}

func leftOutDocs(ls []pricing.BlendLeftOut) []leftOutDoc {
	var out []leftOutDoc
	for _, l := range ls {
		out = append(out, leftOutDoc{What: l.What, Unit: l.Unit, Quantity: l.Quantity, Official: l.Official.String()})
	}
	return out
}

type blendPriceDoc struct {
	Usage         string `json:"usage"`
	Tokens        int64  `json:"tokens"`
	PeakShare     string `json:"peak_share"`
	PeakShareUsed string `json:"peak_share_used,omitempty"` // gateway mode: the share the blended price comes from
	OffPeak       string `json:"off_peak"`
	Peak          string `json:"peak"`
	Blended       string `json:"blended"`
	Official      string `json:"official"`
}

func newBlendDoc(b *pricing.Blend) *blendDoc {
	doc := &blendDoc{AsOf: b.Until.Format(time.RFC3339), From: b.From.Format(time.RFC3339), Until: b.Until.Format(time.RFC3339),
		Mode: b.Mode.String(), PeakShare: ratioText(b.PeakShare), Rows: rowsDoc(b.Rows), ModelsWithoutCalls: b.WithoutCalls, Models: []blendModelDoc{}}
	if !b.TariffAt.IsZero() {
		doc.TariffAt = b.TariffAt.Format(time.RFC3339)
	}
	for _, m := range b.Models {
		md := blendModelDoc{Model: m.Model, Provider: m.Provider, Currency: m.Currency, Calls: m.Calls, Reason: m.Reason, Versions: m.Versions,
			LeftOut: leftOutDocs(m.LeftOut)}
		if r := m.Retired; r != nil {
			md.Retired = &retiredDoc{At: r.At.Format(time.RFC3339), Version: r.Version, Calls: r.Calls}
		}
		if m.Reason == "" {
			md.Official, md.AtBlended = m.Official.String(), m.AtBlended.String()
		}
		for _, p := range m.Prices {
			md.Prices = append(md.Prices, blendPriceDoc{Usage: p.Usage.String(), Tokens: p.Tokens,
				PeakShare: p.PeakShare.StringFixed(pricing.RatioPlaces), PeakShareUsed: ratioText(p.ShareUsed),
				OffPeak: p.OffPeak.String(), Peak: p.Peak.String(), Blended: p.Blended.String(), Official: p.Official.String()})
		}
		doc.Models = append(doc.Models, md)
	}
	return doc
}

// modelDoc is one model of a catalog listing.
type modelDoc struct {
	Model     string   `json:"model"`
	Provider  string   `json:"provider"`
	Hosts     []string `json:"hosts"`
	Names     []string `json:"names"`
	Versions  int      `json:"versions"`
	StatusNow string   `json:"status_now"`
	Currency  string   `json:"currency"`
}

func newModelDocs(models []*tariffs.Model, at time.Time) []modelDoc {
	docs := []modelDoc{}
	for _, m := range models {
		n := 0
		for _, v := range m.Provider.Versions {
			if v.Prices[m] != nil {
				n++
			}
		}
		docs = append(docs, modelDoc{Model: m.ID, Provider: m.Provider.Name, Hosts: append([]string{}, m.Provider.Hosts...), Names: m.Names, Versions: n,
			StatusNow: m.At(at).Status.String(), Currency: m.Provider.Currency})
	}
	return docs
}

// callDoc is the stable per-call output of a price run.
type callDoc struct {
	RequestID  string `json:"request_id"`
	BilledAt   string `json:"billed_at"`
	Model      string `json:"model"`
	Logged     string `json:"logged_model"`
	Outcome    string `json:"outcome"`
	Version    string `json:"version"`
	Period     string `json:"period"`
	Tier       int    `json:"tier"`
	Key        string `json:"key"`
	Input      int64  `json:"input"`
	CacheRead  int64  `json:"cache_read"`
	CacheWrite int64  `json:"cache_write"`
	Output     int64  `json:"output"`
	Reasoning  int64  `json:"reasoning"`
	// Billing modifiers, present when the call has them.
	CacheWrite1h int64        `json:"cache_write_1h,omitempty"`
	ToolUses     *toolUsesDoc `json:"tool_uses,omitempty"`
	ServiceTier  string       `json:"service_tier,omitempty"`
	// AskedTier is the tier the stored request asked for, when the call
	// was served at another (service_tier); TierFrom is "request" when the
	// call is priced at the tier asked for, no stored response saying
	// which tier served it.
	AskedTier string `json:"asked_tier,omitempty"`
	TierFrom  string `json:"tier_from,omitempty"`
	Region    string `json:"region,omitempty"`
	Official  string `json:"official"`
	Recorded  string `json:"recorded"`
	Gap       string `json:"gap"`
	Host      string `json:"host,omitempty"`

	currency string // in CSV and table output only: the JSON line stays as it was
	official decimal.Decimal
	recorded decimal.Decimal
	gap      decimal.Decimal
}

func newCallDoc(c *ledger.Call, pc *pricing.PricedCall) callDoc {
	_, total := pc.Cost(c)
	recorded := c.Recorded.Decimal()
	d := callDoc{RequestID: c.RequestID, BilledAt: pc.At.UTC().Format(time.RFC3339Nano), Model: pc.ModelName(),
		Logged: c.Model, Outcome: pc.Outcome.String(), Tier: pc.Tier, Key: c.Key, Host: pc.Host(),
		Input: c.Tokens.Input, CacheRead: c.Tokens.CacheRead, CacheWrite: c.Tokens.CacheWrite, Output: c.Tokens.Output,
		Reasoning: c.Tokens.Reasoning, CacheWrite1h: c.Tokens.CacheWrite1h, Region: c.Region,
		official: total, recorded: recorded, gap: total.Sub(recorded)}
	if c.Tools.Any() {
		d.ToolUses = &toolUsesDoc{WebSearch: c.Tools[ledger.WebSearch], WebFetch: c.Tools[ledger.WebFetch], FileSearch: c.Tools[ledger.FileSearch]}
	}
	if c.ServiceTier != ledger.TierStandard {
		d.ServiceTier = c.ServiceTier.String()
	}
	switch {
	case c.TierSource == ledger.TierAsked && c.AskedTier != ledger.TierStandard:
		d.TierFrom = "request"
	case c.Asked && c.TierSource == ledger.TierServed && c.AskedTier != c.ServiceTier:
		d.AskedTier = c.AskedTier.String()
	}
	d.Official, d.Recorded, d.Gap = d.official.String(), d.recorded.String(), d.gap.String()
	if pc.Quote.Version != nil {
		d.Version = pc.Quote.Version.Name
	}
	if pc.Outcome == pricing.Priced {
		d.Period = pc.Quote.PeriodName()
	}
	if pc.Quote.Model != nil {
		d.currency = pc.Quote.Model.Provider.Currency
	}
	return d
}

// jsonCalls writes one JSON object per call and line.
type jsonCalls struct {
	enc *json.Encoder
}

func newJSONCalls(w io.Writer) *jsonCalls { return &jsonCalls{enc: json.NewEncoder(w)} }

func (j *jsonCalls) Write(c *ledger.Call, pc *pricing.PricedCall) error {
	d := newCallDoc(c, pc)
	return j.enc.Encode(&d)
}

func (j *jsonCalls) Flush() error { return nil }
