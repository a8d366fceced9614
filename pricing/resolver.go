package pricing

import (
	"time"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/tariffs"
)

// resolver is the engine's name resolution: a call's logged model name,
// model group, host and price key to the tariff model, cursor and host it
// is priced under, resolved once per distinct name and kept (refs), the
// last few tried before the map (recent). Past its budget of names
// (Options.MaxNames) a new name stands under one ref per tariff model and
// host, or OtherNames when no tariff knows it.
type resolver struct {
	cat         *tariffs.Catalog
	tariffAt    time.Time // Options.TariffAt
	refs        map[refKey]*modelRef
	recent      [8]recentRef // the last names resolved, tried before refs
	nextRecent  int
	maxNames    int                       // names kept in refs (Options.MaxNames)
	otherRefs   map[overflowKey]*modelRef // names beyond maxNames, by what they resolve to
	foldedNames int64                     // calls of names beyond maxNames
}

// newResolver returns a resolver of names against cat keeping at most
// maxNames names (DefaultMaxNames when not positive), whose cursors price
// at the tariff in force at tariffAt when it is not zero.
func newResolver(cat *tariffs.Catalog, tariffAt time.Time, maxNames int) resolver {
	if maxNames <= 0 {
		maxNames = DefaultMaxNames
	}
	return resolver{cat: cat, tariffAt: tariffAt, refs: map[refKey]*modelRef{}, maxNames: maxNames}
}

// refKey is how a call names its model, and who served it.
type refKey struct{ model, group, host, priceKey string }

// recentRef is a name resolved lately.
type recentRef struct {
	key refKey
	ref *modelRef
}

// modelRef is a logged model name resolved once, with its cursor and the
// buckets its last calls went to. The caches keep each bucket's cheap hash
// beside it, so that a miss reads no bucket: with thousands of buckets a
// model's buckets are mostly out of the processor's cache.
type modelRef struct {
	model    *tariffs.Model
	cursor   *tariffs.Cursor
	host     string          // the host the names were looked up among ("" : the first-party lists)
	noTariff string          // the call's host, when no tariff prices that host
	name     string          // the name its calls are known by when it stands for many (OtherNames)
	misses   int             // calls that missed last, until recent is made
	last     [4]hashedBucket // most recent first
	// recent holds buckets of this name's calls by the top bits of
	// bucketKey.cheapHash; its length is a power of two, set on first use.
	recent []hashedBucket
	shift  uint8 // 64 - log2(len(recent))
}

// hashedBucket is a bucket with the cheap hash of its key.
type hashedBucket struct {
	h uint64
	b *bucket
}

// recentBucket returns the bucket of key k, whose cheap hash is h, if one
// of the model's last calls went to it, moving it to the front.
func (r *modelRef) recentBucket(k *bucketKey, h uint64) *bucket {
	for i, x := range r.last {
		if x.b == nil {
			return nil
		}
		if x.h == h && x.b.k == *k {
			copy(r.last[1:i+1], r.last[:i])
			r.last[0] = x
			return x.b
		}
	}
	return nil
}

// remember puts b, of hash h, in front of the model's recent buckets.
func (r *modelRef) remember(b *bucket, h uint64) {
	copy(r.last[1:], r.last[:len(r.last)-1])
	r.last[0] = hashedBucket{h, b}
}

// recentSlot returns the slot of the cache by cheap hash where a bucket of
// hash h is looked for first, making the cache once the name's calls have
// missed its last buckets recentAfter times (most names of an input with
// many have few calls, and the cache costs 4 KiB or more): 256 slots when
// calls are grouped by model only (a model has few buckets then), 4096
// when grouped by key, user, day or the like (a model has thousands). It
// returns nil before.
func (r *modelRef) recentSlot(h uint64, grouped bool) *hashedBucket {
	if r.recent == nil {
		if r.misses++; r.misses < recentAfter {
			return nil
		}
		bits := uint8(8)
		if grouped {
			bits = 12
		}
		r.recent, r.shift = make([]hashedBucket, 1<<bits), 64-bits
	}
	return &r.recent[h>>r.shift]
}

// recentAfter is how many calls of a name miss its last buckets before
// the name gets a cache by cheap hash.
const recentAfter = 64

// ref resolves a call's model once per logged name and host: the model
// sent upstream first, then the public model group.
func (n *resolver) ref(c *ledger.Call) *modelRef {
	name := refKey{c.Model, c.ModelGroup, c.Host, c.PriceKey}
	// A few recent names are compared before the map is hashed: readers
	// intern names, and equal strings sharing memory compare at once.
	for i := range n.recent {
		if n.recent[i].key == name && n.recent[i].ref != nil {
			return n.recent[i].ref
		}
	}
	r, ok := n.refs[name]
	if !ok {
		r = n.resolve(c)
		if len(n.refs) < n.maxNames {
			n.refs[name] = r
		} else {
			r = n.overflowRef(r)
		}
	}
	n.recent[n.nextRecent] = recentRef{name, r}
	n.nextRecent = (n.nextRecent + 1) % len(n.recent)
	return r
}

// overflowKey is what a name beyond the budget of names resolved to.
type overflowKey struct {
	model          *tariffs.Model
	host, noTariff string
}

// overflowRef returns the ref that stands for a name beyond the budget of
// names, resolved to r: one per tariff model and host, and one, named
// OtherNames, per host for the names no tariff knows.
func (n *resolver) overflowRef(r *modelRef) *modelRef {
	n.foldedNames++
	k := overflowKey{r.model, r.host, r.noTariff}
	if o := n.otherRefs[k]; o != nil {
		return o
	}
	if n.otherRefs == nil {
		n.otherRefs = map[overflowKey]*modelRef{}
	}
	if r.model == nil {
		r.name = OtherNames
	}
	n.otherRefs[k] = r
	return r
}

// resolve finds a call's model among the lists of its host: the name the
// gateway priced it under (PriceKey), then the name sent upstream, then
// the public model group. A call with no host logged
// takes the host its model's name gives ("azure_ai/..."), for the group
// too. A host no tariff prices is noted, to name it as the reason.
func (n *resolver) resolve(c *ledger.Call) *modelRef {
	host := c.Host
	r := &modelRef{host: tariffs.NormalizeHost(host)}
	for _, name := range []string{priceKeyOf(c), c.Model, c.ModelGroup} {
		if name == "" {
			continue
		}
		m, at, ok := n.cat.ResolveOn(host, name)
		r.host = at
		if ok {
			r.model, r.cursor = m, n.cursorOf(m)
			return r
		}
		if host == "" {
			host = at
		}
	}
	if host != "" && !n.cat.PricesHost(host) {
		r.noTariff = tariffs.NormalizeHost(host)
	}
	return r
}

// priceKeyOf returns the name the gateway priced c under, to be tried
// first: Azure logs a deployment's own name as the model, its price entry
// says which deployment type (Global, Data Zone, Regional) it is. It never
// chooses the host: with none known, a key naming one is passed over.
func priceKeyOf(c *ledger.Call) string {
	if c.Host == "" && tariffs.HostOfPrefix(c.PriceKey) != "" {
		return ""
	}
	return c.PriceKey
}

// cursorOf returns the cursor of m's prices: at each call's own instant,
// or at the tariff in force at tariffAt when set.
func (n *resolver) cursorOf(m *tariffs.Model) *tariffs.Cursor {
	if !n.tariffAt.IsZero() {
		return m.CursorAtTariffOf(n.tariffAt)
	}
	return m.Cursor()
}

// forget drops the buckets every name's last calls went to: after a
// spill, which collapses them.
func (n *resolver) forget() {
	for _, r := range n.refs {
		r.forget()
	}
	for _, r := range n.otherRefs {
		r.forget()
	}
}

// forget drops the buckets the name's last calls went to.
func (r *modelRef) forget() {
	clear(r.last[:])
	clear(r.recent)
}
