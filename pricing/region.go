package pricing

import (
	"sync"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/tariffs"
)

// variantID numbers a service tier and region pair, interned for the
// process: bucket keys hold the number, not the tier and the region's
// string, so that they stay small enough to live in the map itself. 0 is
// the standard tier with no region.
type variantID uint8

// variant is a service tier and a region ("" for none).
type variant struct {
	service tariffs.ServiceTier
	region  string
}

// variantTable interns variants, the same in every engine of a process
// (engines pricing parts of one stream merge their buckets).
type variantTable struct {
	mu   sync.Mutex
	list []variant
	ids  map[variant]variantID
}

var variants = variantTable{list: []variant{{}}, ids: map[variant]variantID{{}: 0}}

// id returns the number of v, interning it when new. Past 255 variants (a
// log with over 60 regions) every new one shares the last one's number: a
// bucket then mixes them, at the rates of the first.
func (t *variantTable) id(v variant) variantID {
	if v == (variant{}) {
		return 0
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if id, ok := t.ids[v]; ok {
		return id
	}
	if len(t.list) > 0xFF {
		return variantID(len(t.list) - 1)
	}
	id := variantID(len(t.list))
	t.list = append(t.list, v)
	t.ids[v] = id
	return id
}

// of returns the variant numbered id.
func (t *variantTable) of(id variantID) variant {
	if id == 0 {
		return variant{}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.list[id]
}

// variantOfCall returns a call's service tier and region.
func variantOfCall(c *ledger.Call) variant {
	return variant{tariffs.ServiceTier(c.ServiceTier), c.Region}
}

// variantOf returns the id of a call's service tier and region, asking the
// table only when they differ from the engine's last call's.
func (e *Engine) variantOf(c *ledger.Call) variantID {
	v := variantOfCall(c)
	if v == (variant{}) {
		return 0
	}
	if v != e.lastVariant {
		e.lastVariant, e.lastVariantID = v, variants.id(v)
	}
	return e.lastVariantID
}

// serviceTier returns the key's service tier.
func (k *bucketKey) serviceTier() tariffs.ServiceTier { return variants.of(k.variant).service }

// regionName returns the name of the key's region, "" for none.
func (k *bucketKey) regionName() string { return variants.of(k.variant).region }

// variantText names the key's service tier and region: "service tier
// batch", "region us", or "service tier flex in region eu" for both.
func (k *bucketKey) variantText() string {
	s, r := k.serviceTier(), k.regionName()
	switch {
	case r == "":
		return "service tier " + s.String()
	case s == tariffs.Standard:
		return "region " + r
	}
	return "service tier " + s.String() + " in region " + r
}
