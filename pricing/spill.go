package pricing

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/tariffs"
)

// An engine with Options.Runs set holds at most its budget of
// buckets (Options.MaxGroups) however many groups the input has. When a
// new bucket would go beyond it, the engine writes the groups of its
// buckets, sorted, to a run in a store of its own (spill), and collapses
// the buckets into one per price: model, version, period, tier, outcome
// and the like, without their groupings (collapse). The collapsed buckets
// keep the totals, the explanations and the billed modifiers whole; the
// runs keep the groups. Reconcile's groups are then the runs and the
// buckets made since, merged as they are read (groupMerge): a group whose
// calls fell on both sides of a spill is summed from its parts, exactly,
// as costs are linear in token counts and the sums are of integers.

// spillRuns are the sorted runs of groups an engine wrote.
type spillRuns struct {
	store   RunStore // the store of the runs, made at the first spill
	max     int      // runs kept before they merge (runsWithin the store's FileLimit)
	files   []string // the runs, oldest first
	charges []string // the runs of charge groups (Options.SpillCharges), oldest first
	aliased bool     // a group of a run has a key alias
	written int      // runs written, for their names
	// chargesWritten is how many runs of charge groups were written, for
	// their names.
	chargesWritten int
	removed        bool // Close removed the runs: their groups cannot be read
}

// runsWithin returns how many runs an engine keeps before it merges them
// into one, for a process that may open limit files (0 when not known;
// RunStore.FileLimit), so that reading them back opens a bounded number of
// files: 256 files and their 64 KiB buffers (16 MiB) when read back, fewer
// when the process may open fewer than 2,048 files (an eighth of its
// limit, at least 16), since the runs of charges and the runs of the lines
// sorted from them are open at once. Until 2026-12-04 it was 64: ten
// million groups by model, key and day (more than 64 runs of buckets, not
// counted) merged 64 runs into one once, rewriting most of the groups for
// about a tenth of the run's CPU (16.6 s of 170 s of samples;
// docs/scale.md, "Ten million groups").
func runsWithin(limit uint64) int {
	switch {
	case limit == 0 || limit >= 8*256:
		return 256
	case limit/8 < 16:
		return 16
	}
	return int(limit / 8)
}

// spilling reports whether the engine writes its groups past its budget
// rather than fold them.
func (e *Engine) spilling() bool { return e.opts.Runs != nil && e.spillErr == nil }

// spill writes the groups of the buckets not yet collapsed to a new run
// and collapses every bucket.
func (e *Engine) spill() {
	err := e.writeRun()
	if err == nil && e.opts.SpillCharges {
		err = e.writeChargeRun()
	}
	if err != nil {
		e.spillErr = fmt.Errorf("%w: %w", ErrSpill, err)
		return
	}
	e.collapse()
}

// writeRun writes the groups of the buckets not yet collapsed, in order,
// to a new run, merging the runs into one first when there are as many as
// the engine keeps (spillRuns.max).
func (e *Engine) writeRun() error {
	if e.runs.store == nil {
		if err := e.openStore(); err != nil {
			return err
		}
	}
	if len(e.runs.files) >= e.runs.max {
		if err := e.compactRuns(); err != nil {
			return err
		}
	}
	c := e.spillCursor(e.liveBuckets())
	return e.newRun(func(s *groupSum) (bool, error) { return c.next(s, nil, 0), nil })
}

// openStore makes the store of the engine's runs (Options.Runs), at its
// first spill, and the number of runs it keeps from the store's budget of
// open files.
func (e *Engine) openStore() error {
	store, err := e.opts.Runs()
	if err != nil {
		return err
	}
	e.runs.store, e.runs.max = store, runsWithin(store.FileLimit())
	return nil
}

// newRun writes the groups next yields to a new run.
func (e *Engine) newRun(next func(*groupSum) (bool, error)) error {
	name := fmt.Sprintf("run-%06d", e.runs.written)
	created, err := writeRunFile(e.runs.store, name, e.opts.SpillBlend, next, func(w *runWriter, s *groupSum) {
		e.runs.aliased = e.runs.aliased || s.g.KeyAlias != ""
		w.write(s)
	})
	if created {
		e.runs.files = append(e.runs.files, name)
		e.runs.written++
	}
	return err
}

// writeRunFile writes the records next yields, each by put, to a new run
// name of store, through a runWriter that writes blend parts when blend is
// set. created says whether the run was made: a caller keeps its name
// then, even when the writing failed, as one of its runs.
func writeRunFile[T any](store RunStore, name string, blend bool, next func(*T) (bool, error), put func(*runWriter, *T)) (created bool, err error) {
	f, err := store.Create(name)
	if err != nil {
		return false, err
	}
	w := runWriter{w: bufio.NewWriterSize(f, 64<<10), blend: blend}
	var v T
	for {
		ok, err := next(&v)
		if err != nil {
			f.Close()
			return true, err
		}
		if !ok {
			break
		}
		put(&w, &v)
	}
	return true, errors.Join(w.w.Flush(), f.Close())
}

// compactRuns merges every run into one.
func (e *Engine) compactRuns() error {
	old := e.runs.files
	m, err := e.openMerge(old, nil)
	if err != nil {
		return err
	}
	e.runs.files = nil
	err = e.newRun(m.next)
	if cerr := m.close(); err == nil {
		err = cerr
	}
	for _, f := range old {
		if rerr := e.runs.store.Remove(f); err == nil {
			err = rerr
		}
	}
	return err
}

// liveBuckets returns the buckets not collapsed: those whose groups are
// not in a run. Buckets of calls kept apart (Options.Apart) are of no
// group, so in no run either.
func (e *Engine) liveBuckets() []*bucket {
	bs := e.buckets.all()
	if e.collapsed == 0 && e.opts.Apart == nil {
		return bs
	}
	live := make([]*bucket, 0, len(bs)-e.collapsed)
	for _, b := range bs {
		if !b.k.collapsed && !b.k.apart {
			live = append(live, b)
		}
	}
	return live
}

// collapse replaces the buckets by one for each of their keys without
// the groupings, marked collapsed, and forgets the buckets the model
// names' caches point to. The day of an engine grouped by day is kept: a
// month's days, by model, and its blend window are read from the
// collapsed buckets (MonthOf), and days are few (a year is 365 per price).
func (e *Engine) collapse() {
	keepDay := e.dims.has(DimDay)
	oldTable := e.buckets
	old := oldTable.all()
	// The old index is not read again: the new one is made in its memory.
	e.buckets = bucketTable{slots: oldTable.slots[:0]}
	// Room for the buckets to the next spill, made once rather than by
	// doubling from the first.
	e.buckets.reserve(e.maxGroups + e.collapsed + 1)
	for _, b := range old {
		k := b.k
		k.group, k.served, k.holder, k.collapsed = 0, 0, heldBy{}, true
		if !keepDay {
			k.slot = 0
		}
		c := e.buckets.get(&k)
		if c == nil {
			c = e.buckets.add(&k, b.bucketPricing)
		}
		c.Calls += b.Calls
		c.Qty.Add(&b.Qty)
		c.recorded.merge(&b.recorded)
	}
	e.buckets.recycle(&oldTable)
	e.collapsed = e.buckets.len()
	// No bucket has a grouping now: its texts start again, so that they
	// hold the values of the buckets to the next spill, not of them all.
	e.values = e.values.emptied()
	for _, r := range e.refs {
		r.forget()
	}
	for _, r := range e.otherRefs {
		r.forget()
	}
}

// renumbered returns k with its groupings numbered among the engine's
// values, from their strings in old: after a spill, which starts the
// values again.
func (e *Engine) renumbered(k *bucketKey, old *texts) bucketKey {
	n := *k
	for _, f := range [...]*text{&n.group, &n.served, &n.holder.key, &n.holder.team, &n.holder.user, &n.holder.tag, &n.holder.meta} {
		*f = e.values.id(old.of(*f))
	}
	return n
}

// forget drops the buckets the name's last calls went to.
func (r *modelRef) forget() {
	clear(r.last[:])
	clear(r.recent)
}

// Close removes the runs the engine wrote, if any. The groups of a
// Reconciliation streamed from them cannot be read after.
func (e *Engine) Close() error {
	if e.runs.store == nil {
		return nil
	}
	err := e.runs.store.RemoveAll()
	e.runs = spillRuns{removed: true}
	return err
}

// groupsOf returns the groups whose sums go by, each made with its
// decimals (groupSum.done), as a function that goes over them each time
// it is called.
func groupsOf(sums func(fn func(*groupSum) error) error) func(fn func(*Group) error) error {
	return func(fn func(*Group) error) error {
		return sums(func(s *groupSum) error {
			g := s.done()
			return fn(&g)
		})
	}
}

// streamSums returns the sums of the engine's groups, in order, as a
// function that goes over them, from the runs and the buckets not
// collapsed, each time it is called.
func (e *Engine) streamSums() func(fn func(*groupSum) error) error {
	var c *groupCursor
	return func(fn func(*groupSum) error) error {
		if c == nil {
			c = e.spillCursor(e.liveBuckets())
		}
		return e.eachSumOf(c, fn)
	}
}

// eachGroupSum calls fn with the sums of each of the engine's groups, in
// order, from the runs and the buckets not collapsed, and returns fn's
// first error or that of reading the runs. fn must not keep s past its
// call.
func (e *Engine) eachGroupSum(fn func(s *groupSum) error) error {
	return e.eachSumOf(e.spillCursor(e.liveBuckets()), fn)
}

// eachSumOf is eachGroupSum with the cursor over the buckets not
// collapsed, made once for a stream gone over more than once.
func (e *Engine) eachSumOf(c *groupCursor, fn func(s *groupSum) error) error {
	if e.runs.removed {
		return fmt.Errorf("%w: the engine was closed", ErrSpill)
	}
	c.rewind()
	m, err := e.openMerge(e.runs.files, c)
	if err != nil {
		return err
	}
	defer m.close()
	var s groupSum
	for {
		ok, err := m.next(&s)
		if err != nil || !ok {
			return err
		}
		if err := fn(&s); err != nil {
			return err
		}
	}
}

// source returns the cursor as a runSource.
func (c *groupCursor) source() runSource[groupSum] { return cursorSource{c} }

// cursorSource is a groupCursor as a runSource.
type cursorSource struct{ c *groupCursor }

func (s cursorSource) next(g *groupSum) (bool, error) { return s.c.next(g, nil, 0), nil }

// groupMerge merges sorted sources of partial groups into whole groups,
// in order.
type groupMerge = runMerge[groupSum]

// openMerge opens the runs files, and mem when not nil, for merging.
func (e *Engine) openMerge(files []string, mem *groupCursor) (*groupMerge, error) {
	dims := sortedDims(e.opts.Dims)
	m := &groupMerge{
		less: func(a, b *groupSum) bool { return compareKeys(&a.g.Key, &b.g.Key, dims) < 0 },
		same: func(a, b *groupSum) bool { return a.g.Key == b.g.Key },
		add:  (*groupSum).merge,
	}
	var srcs []runSource[groupSum]
	var readers []*runReader
	var err error
	if m.files, readers, err = openRuns(e.runs.store, files, e.zone, e.blendCatalog()); err != nil {
		return nil, err
	}
	for _, r := range readers {
		srcs = append(srcs, r)
	}
	if mem != nil {
		srcs = append(srcs, mem.source())
	}
	if err := m.start(srcs); err != nil {
		m.close()
		return nil, err
	}
	return m, nil
}

// openRuns opens the runs files of store for reading, their readers with
// zone and cat; on an error none is left open.
func openRuns(store RunStore, files []string, zone *time.Location, cat *tariffs.Catalog) ([]io.ReadCloser, []*runReader, error) {
	var fs []io.ReadCloser
	var rs []*runReader
	for _, name := range files {
		f, err := store.Open(name)
		if err != nil {
			closeRuns(fs)
			return nil, nil, err
		}
		fs = append(fs, f)
		rs = append(rs, &runReader{r: bufio.NewReaderSize(f, 64<<10), name: runName(f, name), zone: zone, cat: cat})
	}
	return fs, rs, nil
}

// closeRuns closes the files of runs being merged.
func closeRuns(files []io.ReadCloser) error {
	var err error
	for _, f := range files {
		err = errors.Join(err, f.Close())
	}
	return err
}

// compareKeys compares group keys as the groups are ordered: by their
// values in dims, one after the other (dims sorted by name).
func compareKeys(a, b *GroupKey, dims []Dim) int {
	for _, d := range dims {
		if c := compareValue(a, b, d); c != 0 {
			return c
		}
	}
	return 0
}

// merge adds the partial group o, of the same key, to s.
func (s *groupSum) merge(o *groupSum) {
	g, h := &s.g, &o.g
	s.official.merge(&o.official)
	s.recorded.merge(&o.recorded)
	g.Calls += h.Calls
	g.PricedCalls += h.PricedCalls
	for _, c := range h.Currencies {
		g.Currencies = addCurrency(g.Currencies, c)
	}
	g.Tokens.Add(&h.Tokens)
	g.TimedTokens += h.TimedTokens
	g.PeakTokens += h.PeakTokens
	g.CacheHitTokens += h.CacheHitTokens
	g.KeyAlias = firstAlias(g.KeyAlias, h.KeyAlias)
	s.blend.merge(&o.blend)
}

// A run is a sequence of records, each its length (a uvarint), then a
// partial group: its key's texts and the key alias (each a length and
// bytes), its start (a flag, then Unix seconds), outcome, currencies,
// counts, and its official cost and recorded spend as exact sums
// (ExactSum's integer and exponent, then a flag and the decimal part's
// text); then, when the engine keeps them (Options.SpillBlend), its blend
// parts: how many, each its model's id and quantities, then the cost of
// the calls the blend leaves out, an exact sum. Integers are varints. A record is read whole and decoded from
// memory, not byte by byte from the file.

// runStrings is how many texts a record starts with.
const runStrings = 11

// runWriter writes the records of a run.
type runWriter struct {
	w     *bufio.Writer
	blend bool // the records end with the groups' blend parts (Options.SpillBlend)
	buf   []byte
	len   []byte
}

// write writes partial group s.
func (w *runWriter) write(s *groupSum) {
	g := &s.g
	k := &g.Key
	b := w.buf[:0]
	for _, str := range [runStrings]string{k.Model, k.Group, k.Key, k.Team, k.User, k.Period, k.Version, k.Host, k.Tag, k.Meta, g.KeyAlias} {
		b = appendRunString(b, str)
	}
	if k.Start.IsZero() {
		b = append(b, 0)
	} else {
		b = binary.AppendVarint(append(b, 1), k.Start.Unix())
	}
	b = binary.AppendUvarint(b, uint64(k.Outcome))
	b = binary.AppendUvarint(b, uint64(len(g.Currencies)))
	for _, c := range g.Currencies {
		b = appendRunString(b, c)
	}
	for _, n := range g.counts() {
		b = binary.AppendVarint(b, *n)
	}
	b = appendSum(appendSum(b, &s.official), &s.recorded)
	if w.blend {
		b = appendBlend(b, &s.blend)
	}
	w.buf = b
	w.put(b)
}

// put writes record b, its length first.
func (w *runWriter) put(b []byte) {
	w.len = binary.AppendUvarint(w.len[:0], uint64(len(b)))
	w.w.Write(w.len) // a failed write shows at Flush
	w.w.Write(b)
}

// counts returns the group's counts, in the order of a run's records.
func (g *Group) counts() [14]*int64 {
	t := &g.Tokens
	return [...]*int64{&g.Calls, &g.PricedCalls, &t.Input, &t.CacheRead, &t.CacheWrite, &t.Output, &t.Reasoning,
		&t.CacheWrite1h, &t.WebSearch, &t.WebFetch, &t.FileSearch, &g.TimedTokens, &g.PeakTokens, &g.CacheHitTokens}
}

func appendRunString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

func appendSum(b []byte, s *ExactSum) []byte {
	b = binary.AppendVarint(binary.AppendVarint(b, s.small), int64(s.exp))
	if !s.used {
		return append(b, 0)
	}
	return appendRunString(append(b, 1), s.big.String())
}

// runReader reads the records of a run back.
type runReader struct {
	r    *bufio.Reader
	name string
	zone *time.Location
	cat  *tariffs.Catalog // the models of the records' blend parts; nil when they have none
	rec  record           // the record being read
	// last holds each text's last values, most recent first, one of them
	// kept when the next record has the same (a day's groups come key by
	// key, and a key's groups model by model): no string is made then.
	last [runStrings]recentTexts
	cur  []string // the currencies of the last record
	// scratch is where a record's currencies are read, to be compared
	// with the last record's before a list is made.
	scratch []string
}

// next reads the next record into s; false at the end of the run.
func (r *runReader) next(s *groupSum) (bool, error) {
	ok, err := r.read(s)
	if err != nil {
		return false, fmt.Errorf("%w: read %s: %w", ErrSpill, r.name, err)
	}
	return ok, nil
}

func (r *runReader) read(s *groupSum) (bool, error) {
	if ok, err := r.rec.read(r.r); !ok || err != nil {
		return false, err
	}
	d := &r.rec
	*s = groupSum{}
	g := &s.g
	k := &g.Key
	for i, p := range [runStrings]*string{&k.Model, &k.Group, &k.Key, &k.Team, &k.User, &k.Period, &k.Version, &k.Host, &k.Tag, &k.Meta, &g.KeyAlias} {
		*p = d.recentText(&r.last[i])
	}
	if d.byte() == 1 {
		k.Start = time.Unix(d.varint(), 0).In(r.zone)
	}
	k.Outcome = Outcome(d.uvarint())
	r.currencies(g)
	for _, n := range g.counts() {
		*n = d.varint()
	}
	d.sum(&s.official)
	d.sum(&s.recorded)
	if r.cat != nil {
		r.blendParts(&s.blend)
	}
	if d.err == nil && len(d.b) > 0 {
		d.err = errors.New("a record longer than its fields")
	}
	return d.err == nil, d.err
}

// record decodes the fields of a record in memory; its first error stays
// in err, and fields read after it are zero.
type record struct {
	buf []byte // the record
	b   []byte // what is left of it
	err error
}

// read reads the next record of a run from r; false at its end.
func (d *record) read(r *bufio.Reader) (bool, error) {
	if _, err := r.Peek(1); err == io.EOF {
		return false, nil
	}
	n, err := binary.ReadUvarint(r)
	if err != nil {
		return false, noEOF(err)
	}
	if n > 1<<31 {
		return false, errors.New("a record longer than 2 GiB")
	}
	if uint64(cap(d.buf)) < n {
		d.buf = make([]byte, n)
	}
	d.buf = d.buf[:n]
	if _, err := io.ReadFull(r, d.buf); err != nil {
		return false, noEOF(err)
	}
	d.b, d.err = d.buf, nil
	return true, nil
}

// cut notes a record that ends inside a field.
func (d *record) cut() {
	if d.err == nil {
		d.err = io.ErrUnexpectedEOF
	}
	d.b = nil
}

func (d *record) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.cut()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *record) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.cut()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *record) byte() byte {
	if len(d.b) == 0 {
		d.cut()
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

// text reads a text into *last, kept when it has the same bytes.
func (d *record) text(last *string) {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.cut()
		return
	}
	if b := d.b[:n]; string(b) != *last {
		*last = string(b)
	}
	d.b = d.b[n:]
}

// recentTexts are a text's last values in a run, most recent first.
type recentTexts [4]string

// recentText reads a text, one of recent when it has the same bytes, and
// puts it first in recent.
func (d *record) recentText(recent *recentTexts) string {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.cut()
		return ""
	}
	b := d.b[:n]
	d.b = d.b[n:]
	for i, s := range recent {
		if len(s) == len(b) && s == string(b) {
			copy(recent[1:i+1], recent[:i])
			recent[0] = s
			return s
		}
	}
	s := string(b)
	copy(recent[1:], recent[:len(recent)-1])
	recent[0] = s
	return s
}

// currencies reads a record's currencies: the last record's list when the
// same (a list is never changed in place: addCurrency makes a new one
// when it adds).
func (r *runReader) currencies(g *Group) {
	d := &r.rec
	n := d.uvarint()
	if n > uint64(len(d.b)) { // each takes a byte at least
		d.cut()
		return
	}
	same := int(n) == len(r.cur)
	list := r.scratch[:0]
	for i := range int(n) {
		list = append(list, "")
		if i < len(r.cur) {
			list[i] = r.cur[i]
		}
		d.text(&list[i])
		same = same && list[i] == r.cur[i]
	}
	r.scratch = list
	if !same {
		r.cur = slices.Clone(list)
	}
	g.Currencies = r.cur[:len(r.cur):len(r.cur)]
}

// sum reads an exact sum.
func (d *record) sum(s *ExactSum) {
	s.small, s.exp = d.varint(), int32(d.varint())
	if d.byte() != 1 || d.err != nil {
		return
	}
	var text string
	d.text(&text)
	if d.err != nil {
		return
	}
	big, err := decimal.NewFromString(text)
	if err != nil {
		d.err = err
		return
	}
	s.big, s.used = big, true
}

// noEOF turns the end of a run inside a record into an error of its own.
func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// appendBlend appends a group's blend parts to a record.
func appendBlend(b []byte, p *blendParts) []byte {
	b = binary.AppendUvarint(b, uint64(len(p.models)))
	for i := range p.models {
		m := &p.models[i]
		b = appendRunString(b, m.model.ID)
		for _, n := range m.qty {
			b = binary.AppendVarint(b, n)
		}
	}
	return appendSum(b, &p.own)
}

// blendParts reads a record's blend parts into p.
func (r *runReader) blendParts(p *blendParts) {
	d := &r.rec
	n := d.uvarint()
	if n > uint64(len(d.b)) { // each takes a byte at least
		d.cut()
		return
	}
	for range n {
		var id string
		d.text(&id)
		m := r.cat.Model(id)
		if m == nil && d.err == nil {
			d.err = fmt.Errorf("a blend part of model %q, which the catalog does not have", id)
		}
		var q Quantities
		for u := range q {
			q[u] = d.varint()
		}
		if d.err != nil {
			return
		}
		p.models = append(p.models, blendPart{model: m, qty: q})
	}
	d.sum(&p.own)
}
