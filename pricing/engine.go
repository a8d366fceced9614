package pricing

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unsafe"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/tariffs"
)

// Options say how calls are priced and grouped.
type Options struct {
	// Billing overrides each tariff's billing instant when set.
	Billing *tariffs.BillingTime
	// Since and Until bound the billing instants priced, [Since, Until);
	// zero means open. Calls outside count as Outside.
	Since, Until time.Time
	// Dims are the groupings kept apart; the model, version, period and
	// tier are always kept apart because prices depend on them.
	Dims []Dim
	// Zone is the time zone of day and hour groupings; nil means UTC.
	Zone *time.Location
	// Seen keeps the identities of the calls read, to tell duplicates;
	// nil means an in-memory set.
	Seen Seen
	// TariffAt, when set, prices every call at the tariff in force at that
	// instant, as if its version had applied at the call's own instant:
	// that version's periods, windows and calendar decide each call's
	// period. Zero prices each call at the version in force at its own
	// instant.
	TariffAt time.Time
	// MaxNames bounds the distinct logged model names the engine keeps
	// apart; the calls of further names are priced under their tariff
	// model, or grouped as OtherNames when no tariff knows them. Zero
	// means DefaultMaxNames.
	MaxNames int
	// MaxGroups bounds the buckets: past it, a call that needs a new
	// bucket has its groupings (key, team, user, model group) and an
	// unknown model's name folded into the "(other ...)" values, its
	// model, version, period and tier kept. Zero means DefaultMaxGroups.
	MaxGroups int
	// Runs, when set, makes the store to which the engine writes its
	// groups past its budget of buckets (MaxGroups, then
	// DefaultSpillBuckets by default), as sorted runs merged back as the
	// groups are read, instead of folding them: memory stays within the
	// budget however many groups. It is called once, at the first spill;
	// an error is the engine's (ErrSpill). Reconcile's groups are then
	// streamed (Reconciliation.Groups), not listed, and the runs are
	// removed once the engine and the results streamed from them are
	// closed. Reconcile, Chargeback and MonthOf read spilled groups
	// back; the engine's other results read the buckets, whose groupings
	// (but the day or hour) a spill collapses: Rollup is for an engine
	// that did not spill, and Charges for one that did not or kept them
	// (Outputs).
	Runs func() (RunStore, error)
	// Outputs are the results the engine will be asked for once its
	// calls are read, from which an engine that spills (Runs) decides
	// what its runs keep; zero: every one, so that none is missing.
	Outputs Outputs
	// MetaField is the field of the key's metadata (ledger.Call.KeyMeta)
	// that DimMeta groups by.
	MetaField string
	// Apart, when set, says which calls are kept apart from the groups,
	// given the call's key (its hash) and the alias it was logged with
	// ("" when none): their buckets keep no grouping, spill to no run,
	// and TakeApart takes them out of the engine, whose results then
	// leave them out. Chargeback's --exclude-key.
	Apart func(key, alias string) bool
}

// The budget of an engine's memory: with both full it holds about 300 MiB
// (docs/scale.md), however many distinct names, keys, teams or users the
// input has.
const (
	DefaultMaxNames  = 1 << 16
	DefaultMaxGroups = 1 << 21
	// DefaultSpillBytes is the memory of the buckets of an engine that
	// spills its groups (Options.Runs), their list and their index: 88
	// MiB, 388,361 buckets of 208 bytes with an index of 4 MiB (385,024
	// with one of 8 MiB until its slots lost their pointers), where
	// 360,000 buckets of 272 bytes took 104 MiB. More buckets between
	// spills bought no CPU at a million groups (the same from 100,000 to
	// 427,830; every bucket held, 1.12 of it: docs/scale.md, "What a
	// group costs beyond the read, part by part"), so the smaller bucket
	// is spent on memory.
	DefaultSpillBytes = 88 << 20
)

// DefaultSpillBuckets is the budget of buckets of an engine that spills
// its groups: as many as DefaultSpillBytes holds, buckets, list and index
// (bucketsIn).
var DefaultSpillBuckets = bucketsIn(DefaultSpillBytes)

// bucketsIn returns how many buckets, with their place in the list and
// their index at most three quarters full (bucketTable.reserve), fit in
// size bytes: the most of any size of index, each index leaving room for
// a sixty-fourth of its slots of the buckets a spill collapses to
// (groupTable.collapse reserves the budget and those), so that it does
// not grow at a spill.
func bucketsIn(size int) int {
	per := int(unsafe.Sizeof(bucket{}) + unsafe.Sizeof((*bucket)(nil)))
	slot := int(unsafe.Sizeof(indexSlot(0)))
	best := 0
	for slots := 64; slots*slot < size; slots *= 2 {
		best = max(best, min(indexRoom(slots), (size-slots*slot)/per))
	}
	return best
}

// indexRoom is how many buckets of the budget an index of n slots holds:
// three quarters of them, less a sixty-fourth for collapsed buckets.
func indexRoom(n int) int { return 3*n/4 - n/64 }

// bucketKey identifies calls that share prices and groupings. Its strings
// are numbers (text), of the engine's labels (unknown, host) and values
// (the groupings): a key is a few words, compared and hashed as such.
type bucketKey struct {
	model   *tariffs.Model
	version *tariffs.Version
	slot    int64 // start of the day or hour (Unix seconds) when grouped by time
	unknown text  // the logged name when model is nil
	host    text  // of an unpriced call of no known model: the host its name was looked up among
	group   text
	served  text // the host the call was looked up among, when grouped by host
	holder  heldBy
	period  uint8
	tier    uint8
	variant variantID // the call's service tier and region
	outcome Outcome
	day     tariffs.Coverage // of a priced call: what its calendar knows of its local day
	zero    bool             // the gateway recorded zero spend
	noSpend bool             // the gateway records no spend at all
	folded  bool             // groupings folded past the budget of buckets
	// collapsed marks a bucket of calls whose groups were spilled: its
	// groupings are empty and its sums are for the totals only.
	collapsed bool
	apart     bool // of calls kept apart (Options.Apart): no groupings, in no group
}

// heldBy is who a call's spend is charged to, as numbers of the engine's
// values: its key, team and user, each 0 unless grouped by it.
type heldBy struct {
	key, team, user text
	tag, meta       text // the call's tags (ledger.Call.Tags) and key metadata field, when grouped by them
}

// holder is who a call's spend is charged to: its key, team and user,
// each empty unless grouped by it.
type holder struct {
	key, team, user string
	tag, meta       string // the call's tags (ledger.Call.Tags) and key metadata field, when grouped by them
}

// holderOf returns the strings of h.
func (e *Engine) holderOf(h *heldBy) holder {
	v := e.table.values
	return holder{key: v.of(h.key), team: v.of(h.team), user: v.of(h.user), tag: v.of(h.tag), meta: v.of(h.meta)}
}

// compare orders holders by key, then team, user, tags and metadata; it
// returns 0 when they are the same.
func (h *holder) compare(o *holder) int {
	return cmp.Or(strings.Compare(h.key, o.key), strings.Compare(h.team, o.team), strings.Compare(h.user, o.user),
		strings.Compare(h.tag, o.tag), strings.Compare(h.meta, o.meta))
}

// cheapHash mixes the parts of k that tell apart the buckets of one
// logged model name: the groupings, the time slot, the period, tier and
// outcome.
func (k *bucketKey) cheapHash() uint64 {
	h := uint64(k.holder.key) | uint64(k.holder.team)<<32
	h = (h ^ uint64(k.holder.user) ^ uint64(k.group)<<32) * 0x9E3779B97F4A7C15
	h = (h ^ uint64(k.holder.tag) ^ uint64(k.holder.meta)<<32 ^ uint64(k.slot)*0xBF58476D1CE4E5B9) * 0x94D049BB133111EB
	h ^= uint64(k.period)<<40 ^ uint64(k.tier)<<48 ^ uint64(k.outcome)<<56 ^ uint64(k.variant)<<36
	if k.zero {
		h = ^h
	}
	h *= 0xBF58476D1CE4E5B9
	return h ^ h>>29
}

// bucket sums the calls of one bucket key: quantities add as integers and
// are priced once, so a bucket's cost is exactly the sum of its calls' costs.
type bucket struct {
	// The fields a call reads and adds to come first, next to each other.
	k        bucketKey
	KeyAlias string // alias of the key, when grouped by key
	Calls    int64
	Qty      Quantities
	recorded ExactSum
	// The bucket's prices, shared by every bucket of its price (one of
	// the engine's few hundred, pricingOf): a word a bucket where the
	// six fields took seven.
	*bucketPricing
}

// bucketPricing is what prices every call of a bucket alike.
type bucketPricing struct {
	Model     *tariffs.Model       // nil when unknown
	Rates     *tariffs.Rates       // nil unless priced
	prices    *tariffs.ModelPrices // the model's prices in the bucket's service tier and region; nil unless priced
	miss      tariffs.Miss         // what of the bucket's service tier and region the tariff has no rates for
	fixed     *fixedRates          // Rates as integers, nil when unknown
	timeOfUse                      // of a priced bucket, when known: what timedTokens counts
}

// Recorded returns the spend the gateway recorded for the bucket's calls.
func (b *bucket) Recorded() decimal.Decimal { return b.recorded.Value() }

// Official returns the bucket's official cost: zero unless priced.
func (b *bucket) Official() decimal.Decimal {
	if b.Rates == nil || b.k.outcome != Priced {
		return decimal.Zero
	}
	if total, ok := b.fixed.total(&b.Qty); ok {
		return total
	}
	_, total := CostOf(b.Rates, &b.Qty)
	return total
}

// officialAmount is Official as an Amount, for exact sums that allocate
// nothing per bucket (ExactSum).
func (b *bucket) officialAmount() ledger.Amount {
	if b.Rates == nil || b.k.outcome != Priced {
		return ledger.Amount{}
	}
	if a, ok := b.fixed.amount(&b.Qty); ok {
		return a
	}
	_, total := CostOf(b.Rates, &b.Qty)
	return ledger.AmountOf(total)
}

// nameOf returns k's tariff model id, or the logged name when unknown.
func (e *Engine) nameOf(k *bucketKey) string {
	if k.model != nil {
		return k.model.ID
	}
	return e.table.labels.of(k.unknown)
}

// periodName returns the bucket's period, or "" when not priced.
func (b *bucket) periodName() string {
	if b.k.version == nil || b.k.outcome != Priced {
		return ""
	}
	return b.k.version.Periods[b.k.period]
}

// Engine prices a stream of calls into buckets. Its memory grows with the
// number of buckets, and with the identities its Seen keeps (bounded with
// a spilling Seen), never with the calls themselves. An Engine is not safe
// for concurrent use.
//
// An Engine is a composition of its concerns, each a type in a file of
// its own, and the steps of a call that join them (AddPriced):
//   - names, the resolver (resolver.go): a call's model name, group, host
//     and price key to its tariff model, cursor and host, with its caches
//     and the budget of names (Options.MaxNames);
//   - gate, the duplicate gate (gate.go): the identities read
//     (Options.Seen), the sources, and the copies of a repeated identity
//     compared (copies.go);
//   - table, the buckets (groups.go): the buckets by key, the texts of
//     their keys, and the budget of buckets past which groupings fold or
//     the engine spills (Options.MaxGroups);
//   - runs, the spill (spillruns.go): the sorted runs of groups and of
//     charge groups in the store of Options.Runs (internal/extsort),
//     written by spill.go with what Options.Outputs keep.
//
// What prices a call (classify, quote, place), the time-of-use, calendar
// and promotion notes, and the results are the Engine's own.
type Engine struct {
	cat           *tariffs.Catalog
	opts          Options
	dims          dimSet
	zone          *time.Location
	names         resolver              // name resolution (resolver.go)
	gate          dupGate               // the duplicate gate (gate.go)
	table         groupTable            // the buckets and the texts of their keys (groups.go)
	tierNotes     map[tierNoteKey]int64 // priced calls served at another tier than asked, or at the tier asked (tiers.go)
	rows          Rows
	total         Quantities // of every call in a bucket: no sum of buckets exceeds it
	sumErr        error
	noFirst       int64 // calls billed at their start for want of a first-token instant
	slots         slotCache
	unsure        map[unsureKey]*CalendarGap
	promo         map[promoKey]*PromotionGap
	lastVariant   variant                       // the last call's service tier and region, and its interned id
	lastVariantID variantID                     //
	span          Span                          // billing instants of the calls inside the window
	metas         map[string]string             // key metadata as logged → the value of Options.MetaField
	pricings      map[pricingKey]*bucketPricing // the buckets' pricings, one a price (pricingOf)
	lastPricings  *[pricingMemoSize]pricingMemo // the pricings found last, before the map (pricingOf)
	runs          spillRuns                     // the spill: groups past the budget of buckets (Options.Runs, spillruns.go)
	ahead         *lookAhead                    // AddBatch's window (ahead.go); nil until used
	aliases       keyAliases                    // the alias of each key while it has one (alias.go)
	places        textPlaces                    // the values' texts in byte order, kept across spills (groupsort.go)
}

// Span is the first and last billing instant of the calls an engine
// counted inside its window (every outcome but Outside and Overlap); both
// zero when there was none.
type Span struct{ First, Last time.Time }

// see widens the span to t.
func (s *Span) see(t time.Time) {
	if s.First.IsZero() || t.Before(s.First) {
		s.First = t
	}
	if t.After(s.Last) {
		s.Last = t
	}
}

// Span returns the first and last billing instant of the calls counted
// inside the window.
func (e *Engine) Span() Span { return e.span }

// unsureKey is a model and what its calendar knows of some days.
type unsureKey struct {
	model *tariffs.Model
	day   tariffs.Coverage
}

// New returns an engine that prices calls against cat.
func New(cat *tariffs.Catalog, opts Options) *Engine {
	zone := opts.Zone
	if zone == nil {
		zone = time.UTC
	}
	e := &Engine{cat: cat, opts: opts, dims: setOf(opts.Dims), zone: zone,
		names: newResolver(cat, opts.TariffAt, opts.MaxNames), gate: newGate(opts.Seen),
		table:  newGroupTable(opts.MaxGroups, opts.Runs != nil),
		unsure: map[unsureKey]*CalendarGap{},
		promo:  map[promoKey]*PromotionGap{},
		runs:   spillRuns{make: opts.Runs}}
	return e
}

// Rows returns the row accounting so far.
func (e *Engine) Rows() Rows { return e.rows }

// Reject counts a row that could not be read.
func (e *Engine) Reject() {
	e.rows.Read++
	e.rows.Rejected++
}

// AddPriced prices one call into its bucket and returns the priced call:
// what became of it, and its quote for per-call output.
func (e *Engine) AddPriced(c *ledger.Call) PricedCall {
	pc := e.classify(c)
	e.addClassified(&pc, c, nil, 0)
	return pc
}

// addClassified counts a call classify has priced as pc, and adds it to
// its bucket, whose key is known when not nil (AddBatch's look-ahead).
func (e *Engine) addClassified(pc *PricedCall, c *ledger.Call, known *bucketKey, hash uint64) {
	e.rows.count(pc.Outcome)
	switch pc.Outcome {
	case Outside, Overlap, Duplicate:
		// A repeated identity is the same call read again: it counts
		// once, as the copy read first, in calls, tokens and spend.
		return
	}
	e.span.see(pc.At)
	q := QuantitiesOf(c.Tokens, c.Tools)
	if !e.total.addChecked(&q) {
		// Sums of these quantities would wrap: refuse the call, and the run.
		if e.sumErr == nil {
			e.sumErr = fmt.Errorf("%w: at %s", ErrTokenSum, c.Where())
		}
		return
	}
	b := e.place(pc, c, c.Recorded.IsZero(), known, hash)
	b.Calls++
	b.Qty.Add(&q)
	e.notePromotion(pc, 1)
	if !b.k.zero {
		b.recorded.Add(c.Recorded)
	}
	if pc.Outcome == Failed {
		e.quoteFailed(pc, c)
	}
	if c.Asked {
		e.noteTier(c, pc)
	}
}

// quoteFailed notes the rates a failed call is billed at when its
// provider bills failed calls for the tokens reported: after the call
// is placed, so that its bucket is a failed call's like any other.
func (e *Engine) quoteFailed(pc *PricedCall, c *ledger.Call) {
	ref := pc.ref
	if ref == nil || ref.model == nil || !ref.model.Provider.FailedCalls.Billed() {
		return
	}
	q := ref.cursor.At(pc.At)
	if q.Status != tariffs.Priced {
		return
	}
	mp := q.Prices
	if c.ServiceTier != ledger.TierStandard || c.Region != "" {
		mp, _ = mp.Variant(tariffs.ServiceTier(c.ServiceTier), c.Region)
	}
	pc.failedRates = mp.RatesAt(q.Period, mp.TierOf(c.Tokens.Prompt()))
}

// place returns the bucket of a priced call (or of a group of calls
// alike), creating it when new, with the key's alias noted; its key is
// made unless known, and hashed unless hash, its hash in the engine's
// table as it is, is not 0.
func (e *Engine) place(pc *PricedCall, c *ledger.Call, zero bool, known *bucketKey, hash uint64) *bucket {
	var k bucketKey
	if known != nil {
		k = *known
	} else {
		e.keyOf(&k, pc, c, zero, false)
	}
	if pc.Outcome == Priced && k.day != tariffs.Covered {
		e.noteUnsure(pc)
	}
	var b *bucket
	if hash != 0 {
		// Looked ahead (AddBatch): the call's slot of the index and its
		// bucket were read with this hash, and the model's caches would
		// only add reads (its buckets are thousands a day, few among
		// its last; 0.964 of the CPU of the 1M case without them).
		b = e.bucketOf(&k, pc, hash)
	} else {
		b = e.cachedBucket(&k, pc)
	}
	if b.k.folded {
		e.table.foldedCalls++
		return b
	}
	if e.dims.has(DimKey) {
		e.noteAlias(b, c.KeyAlias)
	}
	return b
}

// cachedBucket returns the bucket of key k, of a call not looked ahead,
// through its model's caches of recent buckets first. Calls of one model mostly land in a bucket one of its last calls did
// (the busiest keys of the day). Then a cache by a cheap hash of the
// groupings, before the map, whose hash reads every byte of every string.
func (e *Engine) cachedBucket(k *bucketKey, pc *PricedCall) *bucket {
	h := k.cheapHash()
	if b := pc.ref.recentBucket(k, h); b != nil {
		return b
	}
	var b *bucket
	slot := pc.ref.recentSlot(h, e.dims&^(1<<DimModel) != 0)
	if slot == nil || slot.b == nil || slot.h != h || slot.b.k != *k {
		b = e.bucketOf(k, pc, 0)
		if slot != nil {
			*slot = hashedBucket{h, b}
		}
	} else {
		b = slot.b
	}
	pc.ref.remember(b, h)
	return b
}

// keyOf fills k with the key of the bucket of a priced call (place). To
// look ahead (AddBatch), it numbers no text (texts.lookup) and notes
// nothing, and
// reports false when the key has a text or a service tier and region the
// engine has not numbered, or the engine keeps calls apart: the call's
// bucket is then new, or not found that way.
func (e *Engine) keyOf(k *bucketKey, pc *PricedCall, c *ledger.Call, zero, ahead bool) bool {
	*k = bucketKey{model: pc.Quote.Model, version: pc.Quote.Version, outcome: pc.Outcome, zero: zero}
	label, value := e.table.labels.id, e.table.idOf(e.runs.spilling())
	if ahead {
		if e.opts.Apart != nil {
			return false
		}
		label, value = e.table.labels.lookup, e.table.values.lookup
	}
	if k.model == nil {
		k.unknown = label(pc.modelName)
	}
	if pc.Outcome == Unpriced && k.model == nil {
		// The host the name was looked up among, so that the reports can
		// say which host lacks the model (UnpricedCalls).
		k.host = label(pc.ref.host)
	}
	k.noSpend = !c.Gateway.RecordsSpend()
	if pc.Outcome == Priced {
		k.period, k.tier, k.day = uint8(pc.Quote.Period), uint8(pc.Tier), pc.Quote.Day
		if !ahead {
			k.variant = e.variantOf(c)
		} else if v := variantOfCall(c); v != (variant{}) {
			if v != e.lastVariant {
				return false
			}
			k.variant = e.lastVariantID
		}
	}
	if k.apart = e.keptApart(c); !k.apart {
		e.groupKey(k, c, pc.At, pc.ref.host, value)
	}
	return !ahead || !k.absent()
}

// absent reports whether a text of k is absentText.
func (k *bucketKey) absent() bool {
	// One comparison a field, where a loop over an array of them first
	// copied the nine to the stack: two fifths of keyOf's instructions
	// when looking ahead (cachegrind, by model, key and day on a month
	// of 2,000 keys: 191 of 481 a group).
	h := &k.holder
	return k.unknown == absentText || k.host == absentText || k.group == absentText || k.served == absentText ||
		h.key == absentText || h.team == absentText || h.user == absentText || h.tag == absentText || h.meta == absentText
}

// bucketOf returns the bucket of key k from the map, creating it when new.
// Past the budget of buckets (Options.MaxGroups) a new key's groupings are
// folded into the "(other ...)" values, its model, version, period and
// tier kept, so that the calls are still priced exactly; an engine that
// spills writes its groups to a run instead, there or, once it holds
// slotSpillAt buckets, when k opens a later day or hour than any before.
// hash is k's hash in the table, 0 when not known.
func (e *Engine) bucketOf(k *bucketKey, pc *PricedCall, hash uint64) *bucket {
	g := &e.table
	var b *bucket
	h := hash
	if h != 0 {
		b = g.buckets.findHashed(k, h)
	} else {
		b, h = g.buckets.find(k)
	}
	if b != nil {
		return b
	}
	known := len(g.buckets.slots) != 0 // h is k's hash in the table
	// A call of a later day or hour than any before spills early
	// (groupTable.endsSlot), noted whether or not the engine spills.
	if endsSlot := g.endsSlot(k.slot); (endsSlot || g.full()) && e.runs.spilling() {
		old := g.values
		e.spill()
		known = false
		if g.values != old {
			n := g.renumbered(k, old)
			k = &n
		}
	}
	if g.full() {
		f := g.fold(k)
		if b := g.buckets.get(&f); b != nil {
			return b
		}
		k, known = &f, false
	}
	return g.buckets.addHashed(k, h, known, e.pricingOf(k, pc))
}

// The values that stand for the names, keys, teams, users and model groups
// beyond the budget (Options.MaxNames, Options.MaxGroups).
const (
	OtherNames  = "(other names)"
	OtherKeys   = "(other keys)"
	OtherTeams  = "(other teams)"
	OtherUsers  = "(other users)"
	OtherGroups = "(other groups)"
	OtherTags   = "(other tags)"
	OtherMeta   = "(other values)"
)

// groupKey fills the grouping fields of k that were asked for, host
// among them, their strings numbered by id (keyOf). Past the budget of
// buckets, when the engine folds rather than spills, a string it has not
// numbered is not numbered (absentText: the bucket is new, its groupings
// folded), so that its texts stay within the budget too.
func (e *Engine) groupKey(k *bucketKey, c *ledger.Call, at time.Time, served string, id func(string) text) {
	if e.dims.has(DimGroup) {
		k.group = id(c.ModelGroup)
	}
	if e.dims.has(DimKey) {
		k.holder.key = id(c.Key)
	}
	if e.dims.has(DimTeam) {
		k.holder.team = id(c.Team)
	}
	if e.dims.has(DimUser) {
		k.holder.user = id(c.User)
	}
	if e.dims.has(DimTag) {
		k.holder.tag = id(c.Tags)
	}
	if e.dims.has(DimMeta) {
		k.holder.meta = id(e.metaOf(c.KeyMeta))
	}
	if e.dims.has(DimHost) {
		k.served = id(served)
	}
	switch {
	case e.dims.has(DimHour):
		k.slot = e.slots.hourSlot(at, e.zone)
	case e.dims.has(DimDay):
		k.slot = e.slots.daySlot(at, e.zone)
	}
}

// metaOf returns the value of the engine's MetaField in a key's metadata:
// a string as it is, a number or boolean as written, "" when the field is
// absent or null, or the metadata not a JSON object.
func (e *Engine) metaOf(meta string) string {
	if meta == "" {
		return ""
	}
	if v, ok := e.metas[meta]; ok {
		return v
	}
	var fields map[string]json.RawMessage
	v := ""
	if json.Unmarshal([]byte(meta), &fields) == nil {
		if raw, ok := fields[e.opts.MetaField]; ok && string(raw) != "null" {
			var s string
			if json.Unmarshal(raw, &s) == nil {
				v = s
			} else {
				v = string(raw)
			}
		}
	}
	if e.metas == nil {
		e.metas = map[string]string{}
	}
	if len(e.metas) < 1<<16 {
		e.metas[meta] = v
	}
	return v
}

// firstAlias picks a key's alias independently of the order calls come in:
// the first in sort order among those seen, empty only when none is known.
// The same bytes (the reader interns the aliases it reads) are the same
// alias, not compared.
func firstAlias(cur, alias string) string {
	if len(alias) == len(cur) && unsafe.StringData(alias) == unsafe.StringData(cur) {
		return cur
	}
	if alias != "" && (cur == "" || alias < cur) {
		return alias
	}
	return cur
}

// PricedCall is one call with what it costs.
type PricedCall struct {
	Outcome Outcome
	At      time.Time // billing instant
	Quote   tariffs.Quote
	Tier    int
	Rates   *tariffs.Rates // nil unless priced
	// Miss says what of the call's service tier and region its tariff
	// version has no rates for: Rates are then the standard tier's, or
	// without the region's multiplier.
	Miss   tariffs.Miss
	prices *tariffs.ModelPrices // the model's prices in the call's service tier and region
	// failedRates are the rates of a failed call whose provider bills
	// failed calls for the tokens reported; nil otherwise.
	failedRates *tariffs.Rates
	modelName   string
	ref         *modelRef
}

// ModelName returns the tariff model id, or the logged name when unknown.
func (p *PricedCall) ModelName() string { return p.modelName }

// Host returns the host the call's model was looked up among: the call's
// host, or the one its model's name gave; "" for the first-party lists.
func (p *PricedCall) Host() string {
	if p.ref == nil {
		return ""
	}
	return p.ref.host
}

// Cost returns the call's official cost per usage type and in total; zero
// unless priced.
func (p *PricedCall) Cost(c *ledger.Call) (byUsage [tariffs.NumUsage]decimal.Decimal, total decimal.Decimal) {
	if p.Outcome != Priced {
		for u := range byUsage {
			byUsage[u] = decimal.Zero
		}
		return byUsage, decimal.Zero
	}
	q := QuantitiesOf(c.Tokens, c.Tools)
	return CostOf(p.Rates, &q)
}

// FailedCost returns the official cost of a failed call whose provider
// bills failed calls for the tokens its log reports (tariff
// failed_calls: billed_reported_tokens), and true; zero and false for any
// other call. The cost is not in the run's official cost, which prices
// successful calls only.
func (p *PricedCall) FailedCost(c *ledger.Call) (decimal.Decimal, bool) {
	if p.Outcome != Failed || p.failedRates == nil {
		return decimal.Zero, false
	}
	q := QuantitiesOf(c.Tokens, c.Tools)
	_, total := CostOf(p.failedRates, &q)
	return total, true
}

// classify decides the outcome of a call and the quote it is priced at.
func (e *Engine) classify(c *ledger.Call) PricedCall {
	ref := e.names.ref(c)
	pc := newPriced(c, ref)
	billing := e.billingOf(ref)
	pc.At = billingInstant(c, billing)
	if billing == tariffs.BillFirstToken && c.FirstToken.IsZero() {
		e.noFirst++
	}
	switch {
	case (!e.opts.Since.IsZero() && pc.At.Before(e.opts.Since)) || (!e.opts.Until.IsZero() && !pc.At.Before(e.opts.Until)):
		pc.Outcome = Outside
	case e.gate.seenBefore(c, &pc):
	case c.CacheHit:
		pc.Outcome = CacheHit
	case c.Status == ledger.StatusFailure:
		pc.Outcome = Failed
	case ref.model == nil:
		pc.Outcome = Unpriced
	default:
		e.quote(&pc, c.Tokens.Prompt(), c)
	}
	return pc
}

// newPriced starts the priced call of c, whose model resolved to ref: it
// names the tariff's model, or the logged name when there is none.
func newPriced(c *ledger.Call, ref *modelRef) PricedCall {
	pc := PricedCall{modelName: loggedName(c), ref: ref}
	if ref.name != "" {
		pc.modelName = ref.name
	}
	if ref.model != nil {
		pc.modelName = ref.model.ID
		pc.Quote.Model = ref.model
	}
	return pc
}

// billingOf returns the instant that bills the calls of ref's model: the
// tariff's, unless Options.Billing overrides it; the end without a tariff.
func (e *Engine) billingOf(ref *modelRef) tariffs.BillingTime {
	switch {
	case e.opts.Billing != nil:
		return *e.opts.Billing
	case ref.model != nil:
		return ref.model.Provider.Billing
	}
	return tariffs.BillEnd
}

// quote sets the quote, outcome, tier and rates of a call of a known model
// at its billing instant: the rates of the call's service tier and region
// where the version lists them.
func (e *Engine) quote(pc *PricedCall, prompt int64, c *ledger.Call) {
	pc.Quote = *pc.ref.cursor.At(pc.At)
	switch pc.Quote.Status {
	case tariffs.Priced:
		pc.Outcome = Priced
		mp := pc.Quote.Prices
		if c.ServiceTier != ledger.TierStandard || c.Region != "" {
			mp, pc.Miss = mp.Variant(tariffs.ServiceTier(c.ServiceTier), c.Region)
		}
		pc.prices = mp
		pc.Tier = mp.TierOf(prompt)
		pc.Rates = mp.RatesAt(pc.Quote.Period, pc.Tier)
	case tariffs.Retired:
		pc.Outcome = Retired
	default:
		pc.Outcome = Unpriced
	}
}

// loggedName is the name a call's model is known by when no tariff has it.
func loggedName(c *ledger.Call) string {
	if c.Model != "" {
		return c.Model
	}
	return c.ModelGroup
}

// Folded returns how many calls had a name beyond the budget of names
// (priced under their tariff model, or as OtherNames), and how many
// landed in a bucket whose groupings were folded past the budget of
// groups.
func (e *Engine) Folded() (names, groups int64) { return e.names.foldedNames, e.table.foldedCalls }

// NextSource tells the engine that the calls that follow come from another
// source (file, export or database) than those before: a call read again
// from the same source is a Duplicate, one read before from another source
// an Overlap.
func (e *Engine) NextSource() { e.gate.nextSource() }

// FirstTokenFallbacks returns how many calls read were billed at their
// start because their billing instant is the first token and the gateway
// logged none.
func (e *Engine) FirstTokenFallbacks() int64 { return e.noFirst }

// Err returns the first error of the identity set, or ErrTokenSum, if
// any: the engine's results are incomplete when it is not nil.
func (e *Engine) Err() error {
	if e.sumErr != nil {
		return e.sumErr
	}
	if e.runs.err != nil {
		return e.runs.err
	}
	return e.gate.err
}

// billingInstant returns the instant of a call that b says bills it,
// falling back to the start when the gateway did not log that instant.
func billingInstant(c *ledger.Call, b tariffs.BillingTime) time.Time {
	switch {
	case b == tariffs.BillEnd && !c.End.IsZero():
		return c.End
	case b == tariffs.BillFirstToken && !c.FirstToken.IsZero():
		return c.FirstToken
	}
	return c.Start
}

// allBuckets returns every bucket, in no particular order.
func (e *Engine) allBuckets() []*bucket {
	return append([]*bucket(nil), e.table.buckets.all()...)
}
