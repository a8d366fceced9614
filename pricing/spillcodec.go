package pricing

import (
	"fmt"
	"math/bits"
	"slices"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/internal/extsort"
	"github.com/tokenfare/tokenfare/tariffs"
)

// A record of a run of groups is a partial group: its texts (runTexts),
// those of the slots the engine's dimensions fill (textSlots), each the
// last record's (a bit each, in a uvarint first) or its number plus one,
// or 0 and the text itself when it has no number; its start (a byte:
// none, the last record's, or Unix seconds after it), outcome,
// currencies (their number plus one, then each, or 0 for the last
// record's list), its numbers (encodeNumbers: which of its counts are not
// zero and those counts, and its official cost and recorded spend as
// exact sums, ExactSum's integer and exponent and its decimal part's
// text); then, when the engine keeps them (OutputChargeback), its blend
// parts: how many, each its model's id and quantities, then the cost of
// the calls the blend leaves out, an exact sum. Integers are varints
// (extsort.Encoder).

// groupCodec writes and reads the records of a run of groups; one is made
// for each run written or read, as it keeps the last record's texts and
// currencies.
type groupCodec struct {
	zone  *time.Location
	cat   *tariffs.Catalog // the models of the records' blend parts; nil when they have none
	blend bool             // write the groups' blend parts
	texts *runTexts        // the numbers of the records' texts
	// values are the engine's values, whose numbers a record made from
	// buckets (groupSum.from) has its texts by; nil when not known.
	values **texts
	slots  []uint8 // the slots of the texts a record holds (textSlots)
	// valueDims are, by slot, the dimensions whose values are the
	// engine's texts (textDim), with valued's bit of the slot set.
	valueDims [runStrings]Dim
	valued    uint64
	// ids and strs are the last record's texts, by the place of their
	// slot in slots: a text the same is written as a bit (a key's
	// groups come day by day, a day's key by key).
	ids  [runStrings]text
	strs [runStrings]string
	// written are the last record's texts as Encode was given them, when
	// wrote says so (not for a record of numbers, read back): the same
	// text (a key's groups come one after the other, its alias with
	// them) has the last record's number, not looked up again.
	written [runStrings]string
	wrote   [runStrings]bool
	// last holds the last values of each text written whole (past
	// maxRunTexts), most recent first.
	last      [runStrings]extsort.Recent
	prevStart time.Time // the start of the last record written or read
	exps      [2]int32  // the sums' exponents of the last record that wrote them
	cur       []string  // the currencies of the last record
	// scratch is where a record's currencies are read, to be compared
	// with the last record's before a list is made.
	scratch []string
}

// newGroupCodec returns the codec of a run of the groups by dims, whose
// texts texts numbers.
func newGroupCodec(zone *time.Location, cat *tariffs.Catalog, blend bool, texts *runTexts, dims []Dim) *groupCodec {
	c := &groupCodec{zone: zone, cat: cat, blend: blend, texts: texts, slots: textSlots(dims)}
	for _, d := range dims {
		if i := slotOf(d); i >= 0 && textDim(d) {
			c.valueDims[i], c.valued = d, c.valued|1<<i
		}
	}
	return c
}

// Encode writes partial group s.
func (c *groupCodec) Encode(e *extsort.Encoder, s *groupSum) {
	g := &s.g
	c.encodeTexts(e, s)
	c.encodeStart(e, g.Key.Start)
	e.Uvarint(uint64(g.Key.Outcome))
	c.encodeCurrencies(e, g.Currencies)
	c.encodeNumbers(e, s)
	if c.blend {
		encodeBlend(e, &s.blend)
	}
}

// encodeTexts writes the texts of s: the bits of those that are the last
// record's, then each of the others' number plus one, or 0 and the text.
func (c *groupCodec) encodeTexts(e *extsort.Encoder, s *groupSum) {
	var ids [runStrings]text
	var same uint64 // bit j: the text of slots[j] is the last record's
	for j, i := range c.slots {
		n := s.ids[i]
		if s.numbered {
			c.wrote[j] = false
		} else {
			str := *textOf(&s.g, int(i))
			switch {
			case c.wrote[j] && str == c.written[j]:
				n = c.ids[j]
			case c.valued&(1<<i) != 0 && s.from != nil && c.values != nil:
				n = c.texts.valueID(*c.values, textIn(s.from, c.valueDims[i]), str)
			case i == slotAlias && s.from != nil && c.values != nil:
				n = c.texts.aliasID(*c.values, s.from.k.holder.key, str)
			default:
				n = c.texts.id(str)
			}
			c.written[j], c.wrote[j] = str, true
		}
		if ids[j] = n; n == c.ids[j] && n != absentText {
			same |= 1 << j
		}
	}
	e.Uvarint(same)
	for j, i := range c.slots {
		switch n := ids[j]; {
		case same&(1<<j) != 0:
		case n == absentText:
			e.Uvarint(0)
			e.String(*textOf(&s.g, int(i)))
		default:
			e.Uvarint(uint64(n) + 1)
		}
	}
	c.ids = ids
}

// Decode reads partial group s.
func (c *groupCodec) Decode(d *extsort.Decoder, s *groupSum) {
	s.clearToRead()
	g := &s.g
	c.decodeTexts(d, s)
	c.decodeStart(d, &g.Key.Start)
	g.Key.Outcome = Outcome(d.Uvarint())
	c.currencies(d, g)
	c.decodeNumbers(d, s)
	if c.cat != nil {
		c.blendParts(d, &s.blend)
	}
}

// clearToRead zeroes what Decode does not write of every record: the
// sums, the counts (a record holds those not zero) and the start, where
// a whole sum of 600 bytes was cleared. The key's texts Decode does not
// write (those of no slot of the codec's) are empty in every sum read
// into: a merge's sums, decoded or made from buckets (groupCursor), are
// of the same dimensions.
func (s *groupSum) clearToRead() {
	g := &s.g
	s.from = nil
	g.Key.Start = time.Time{}
	g.Calls, g.PricedCalls, g.Tokens = 0, 0, TokenCounts{}
	g.TimedTokens, g.PeakTokens, g.CacheHitTokens = 0, 0, 0
	s.official, s.recorded, s.blend = ExactSum{}, ExactSum{}, blendParts{}
	s.numbered = true
}

// decodeTexts reads the texts of s, numbered, Encode's: no string is made
// but of a text written whole.
func (c *groupCodec) decodeTexts(d *extsort.Decoder, s *groupSum) {
	same := d.Uvarint()
	for j, i := range c.slots {
		if same&(1<<j) == 0 {
			c.ids[j], c.strs[j] = c.text(d, j)
		}
		s.ids[i], *textOf(&s.g, int(i)) = c.ids[j], c.strs[j]
	}
}

// text reads the text of slots[j] when it is not the last record's: its
// number and string.
func (c *groupCodec) text(d *extsort.Decoder, j int) (text, string) {
	v := d.Uvarint()
	if v == 0 {
		return absentText, d.Recent(&c.last[j])
	}
	str, ok := c.texts.of(v - 1)
	if !ok && d.Err() == nil {
		d.Fail(fmt.Errorf("text %d, which the runs did not number", v-1))
	}
	return text(v - 1), str
}

// The head of a record's numbers (encodeNumbers): four flags, then a bit
// for each count that is not zero, bit countBits+i for counts()[i].
const (
	sameExps    = 1 << iota // the sums' exponents are the last record's
	allPriced               // the priced calls are the calls (not written)
	officialBig             // the official cost has a decimal part (its text follows)
	recordedBig             // the recorded spend has one
	countBits   = iota      // the bit of the first count
)

// encodeNumbers writes the numbers of s: the head (its flags and which
// counts are not zero), those counts, the sums' integers, their exponents
// unless the last record's, and the texts of their decimal parts. Most
// groups' calls are all priced, their sums of the last record's
// exponents, and their counts among the first ten (counts), so that the
// head is two bytes.
func (c *groupCodec) encodeNumbers(e *extsort.Encoder, s *groupSum) {
	g := &s.g
	counts := g.counts()
	head := g.nonzeroCounts() << countBits
	if g.PricedCalls == g.Calls {
		head = head&^(1<<(countBits+1)) | allPriced
	}
	exps := [2]int32{s.official.exp, s.recorded.exp}
	if exps == c.exps {
		head |= sameExps
	}
	if s.official.big != nil {
		head |= officialBig
	}
	if s.recorded.big != nil {
		head |= recordedBig
	}
	e.Uvarint(head)
	for m := head >> countBits; m != 0; m &= m - 1 {
		e.Varint(*counts[bits.TrailingZeros64(m)])
	}
	e.Varint(s.official.small)
	e.Varint(s.recorded.small)
	if head&sameExps == 0 {
		e.Varint(int64(exps[0]))
		e.Varint(int64(exps[1]))
		c.exps = exps
	}
	for _, sum := range [...]*ExactSum{&s.official, &s.recorded} {
		if sum.big != nil {
			e.String(sum.big.String())
		}
	}
}

// decodeNumbers reads what encodeNumbers wrote into s.
func (c *groupCodec) decodeNumbers(d *extsort.Decoder, s *groupSum) {
	g := &s.g
	counts := g.counts()
	head := d.Uvarint()
	if head >= 1<<(countBits+len(counts)) {
		d.Fail(fmt.Errorf("a record's numbers headed %#x", head))
		return
	}
	for m := head >> countBits; m != 0; m &= m - 1 {
		*counts[bits.TrailingZeros64(m)] = d.Varint()
	}
	if head&allPriced != 0 {
		g.PricedCalls = g.Calls
	}
	s.official.small, s.recorded.small = d.Varint(), d.Varint()
	if head&sameExps == 0 {
		c.exps = [2]int32{int32(d.Varint()), int32(d.Varint())}
	}
	s.official.exp, s.recorded.exp = c.exps[0], c.exps[1]
	if head&officialBig != 0 {
		decodeBig(d, &s.official)
	}
	if head&recordedBig != 0 {
		decodeBig(d, &s.recorded)
	}
}

// nonzeroCounts returns which of the group's counts are not zero, bit i
// for counts()[i].
func (g *Group) nonzeroCounts() uint64 {
	t := &g.Tokens
	return boolBit(g.Calls != 0) | boolBit(g.PricedCalls != 0)<<1 | boolBit(t.Input != 0)<<2 | boolBit(t.CacheRead != 0)<<3 |
		boolBit(t.Output != 0)<<4 | boolBit(g.TimedTokens != 0)<<5 | boolBit(g.PeakTokens != 0)<<6 | boolBit(t.Reasoning != 0)<<7 |
		boolBit(t.CacheWrite != 0)<<8 | boolBit(t.CacheWrite1h != 0)<<9 | boolBit(t.WebSearch != 0)<<10 |
		boolBit(t.WebFetch != 0)<<11 | boolBit(t.FileSearch != 0)<<12 | boolBit(g.CacheHitTokens != 0)<<13
}

// counts returns the group's counts, in the order of a run's records:
// those most groups have first.
func (g *Group) counts() [14]*int64 {
	t := &g.Tokens
	return [...]*int64{&g.Calls, &g.PricedCalls, &t.Input, &t.CacheRead, &t.Output, &g.TimedTokens, &g.PeakTokens,
		&t.Reasoning, &t.CacheWrite, &t.CacheWrite1h, &t.WebSearch, &t.WebFetch, &t.FileSearch, &g.CacheHitTokens}
}

// Starts of a record (encodeStart): a group's day or hour comes again in
// the records that follow it (groups sorted by day come key by key).
const (
	noStart   = 0 // the group has no start (not grouped by time)
	newStart  = 1 // Unix seconds follow
	sameStart = 2 // the last record's
)

// encodeStart writes a record's start: none, the last record's (a byte,
// where the seconds took five more and a time made when read), or its
// Unix seconds.
func (c *groupCodec) encodeStart(e *extsort.Encoder, start time.Time) {
	switch {
	case start.IsZero():
		e.Byte(noStart)
		return
	case start.Equal(c.prevStart) && start.Location() == c.prevStart.Location():
		e.Byte(sameStart)
		return
	}
	e.Byte(newStart)
	e.Varint(start.Unix())
	c.prevStart = start
}

// decodeStart reads a record's start into *start (left zero when none).
func (c *groupCodec) decodeStart(d *extsort.Decoder, start *time.Time) {
	switch d.Byte() {
	case newStart:
		c.prevStart = time.Unix(d.Varint(), 0).In(c.zone)
		*start = c.prevStart
	case sameStart:
		*start = c.prevStart
	}
}

// encodeCurrencies writes a record's currencies: 0 when they are the
// last record's, else their number plus one and each.
func (c *groupCodec) encodeCurrencies(e *extsort.Encoder, list []string) {
	if len(list) > 0 && slices.Equal(list, c.cur) {
		e.Uvarint(0)
		return
	}
	e.Uvarint(uint64(len(list)) + 1)
	for _, cur := range list {
		e.String(cur)
	}
	c.cur = list
}

// currencies reads a record's currencies: the last record's list when the
// same (a list is never changed in place: addCurrency makes a new one
// when it adds).
func (c *groupCodec) currencies(d *extsort.Decoder, g *Group) {
	n := d.Count()
	if n == 0 { // the last record's
		g.Currencies = c.cur[:len(c.cur):len(c.cur)]
		return
	}
	n--
	same := n == len(c.cur)
	list := c.scratch[:0]
	for i := range n {
		list = append(list, "")
		if i < len(c.cur) {
			list[i] = c.cur[i]
		}
		d.TextTo(&list[i])
		same = same && list[i] == c.cur[i]
	}
	c.scratch = list
	if !same {
		c.cur = slices.Clone(list)
	}
	g.Currencies = c.cur[:len(c.cur):len(c.cur)]
}

// encodeSum writes an exact sum: its integer and exponent, then a flag and
// the text of its decimal part when it has one.
func encodeSum(e *extsort.Encoder, s *ExactSum) {
	e.Varint(s.small)
	e.Varint(int64(s.exp))
	if s.big == nil {
		e.Byte(0)
		return
	}
	e.Byte(1)
	e.String(s.big.String())
}

// decodeSum reads an exact sum encodeSum wrote.
func decodeSum(d *extsort.Decoder, s *ExactSum) {
	s.small, s.exp = d.Varint(), int32(d.Varint())
	if d.Byte() == 1 {
		decodeBig(d, s)
	}
}

// decodeBig reads the text of the decimal part of exact sum s.
func decodeBig(d *extsort.Decoder, s *ExactSum) {
	if d.Err() != nil {
		return
	}
	var text string
	d.TextTo(&text)
	if d.Err() != nil {
		return
	}
	big, err := decimal.NewFromString(text)
	if err != nil {
		d.Fail(err)
		return
	}
	s.big = &big
}

// encodeBlend writes a group's blend parts.
func encodeBlend(e *extsort.Encoder, p *blendParts) {
	e.Uvarint(uint64(len(p.models)))
	for i := range p.models {
		m := &p.models[i]
		e.String(m.model.ID)
		for _, n := range m.qty {
			e.Varint(n)
		}
	}
	encodeSum(e, &p.own)
}

// blendParts reads a record's blend parts into p.
func (c *groupCodec) blendParts(d *extsort.Decoder, p *blendParts) {
	n := d.Count()
	for range n {
		var id string
		d.TextTo(&id)
		m := c.cat.Model(id)
		if m == nil && d.Err() == nil {
			d.Fail(fmt.Errorf("a blend part of model %q, which the catalog does not have", id))
		}
		var q Quantities
		for u := range q {
			q[u] = d.Varint()
		}
		if d.Err() != nil {
			return
		}
		p.models = append(p.models, blendPart{model: m, qty: q})
	}
	decodeSum(d, &p.own)
}

// A record of a run of charge groups is the group's slot, its key's texts
// (key, team, user, the unknown model's name) and the key alias, its
// outcome, the number of its price (chargePrices), its calls and
// quantities, and its recorded spend, an exact decimal
// (extsort.Encoder.Decimal).

// chargeStrings is how many texts a record of a charge group holds.
const chargeStrings = 5

// chargeCodec writes and reads the records of a run of charge groups,
// whose prices are numbered in prices.
type chargeCodec struct {
	prices *chargePrices
	last   [chargeStrings]extsort.Recent // as groupCodec's
}

// Encode writes charge group g, numbering its price.
func (c *chargeCodec) Encode(e *extsort.Encoder, g *chargeGroup) {
	k := &g.k
	e.Varint(k.slot)
	for _, s := range [chargeStrings]string{k.key, k.team, k.user, k.unknown, g.alias} {
		e.String(s)
	}
	e.Uvarint(uint64(k.outcome))
	e.Uvarint(uint64(c.prices.id(&k.chargePrice, &g.pricing)))
	e.Varint(g.calls)
	for _, n := range g.qty {
		e.Varint(n)
	}
	e.Decimal(g.recorded)
}

// Decode reads charge group g.
func (c *chargeCodec) Decode(d *extsort.Decoder, g *chargeGroup) {
	*g = chargeGroup{}
	k := &g.k
	k.slot = d.Varint()
	for i, p := range [chargeStrings]*string{&k.key, &k.team, &k.user, &k.unknown, &g.alias} {
		*p = d.Recent(&c.last[i])
	}
	k.outcome = Outcome(d.Uvarint())
	price := d.Uvarint()
	g.calls = d.Varint()
	for u := range g.qty {
		g.qty[u] = d.Varint()
	}
	g.recorded = d.Decimal()
	if d.Err() == nil && price >= uint64(len(c.prices.list)) {
		d.Fail(fmt.Errorf("price %d, which the engine did not number", price))
	}
	if d.Err() != nil {
		return
	}
	p := &c.prices.list[price]
	k.chargePrice, g.pricing = p.chargePrice, p.pricing
}

// lineCodec writes and reads the records of a run of chargeback lines:
// a line's group with its blend parts (the line's cost at the blended
// prices alone), the line made again from them when read.
type lineCodec struct{ groups groupCodec }

func (c *lineCodec) Encode(e *extsort.Encoder, ent *lineEntry) { c.groups.Encode(e, &ent.s) }

func (c *lineCodec) Decode(d *extsort.Decoder, ent *lineEntry) {
	if c.groups.Decode(d, &ent.s); d.Err() == nil {
		ent.l = lineOf(&ent.s)
	}
}
