package pricing

import "unsafe"

// A bucket grouped by key keeps its key's alias: the first in sort order
// of those its calls came with (firstAlias). Most keys come with one
// alias, but not in one copy: each reading goroutine interns its own, so
// that two calls' aliases are mostly other bytes of the same text, and
// comparing them read both from memory on every call (on a million
// groups by model, key and day, 0.08 s of a run's CPU). keyAliases notes,
// for each key, the alias its calls came with while they came with one,
// and the bytes of two copies of it: a call whose alias is one of them
// has its key's alias, known without reading it.

// keyAlias is what the calls of one key came with.
type keyAlias struct {
	alias string // the one alias; "" until a call comes with one
	alt   *byte  // the bytes of a second copy of alias, nil until met
	many  bool   // the calls came with more than one alias
}

// keyAliases is keyAlias by the number of the key among the values it
// was made with.
type keyAliases struct {
	values *texts
	of     []keyAlias
}

// noteAlias notes a call's alias in its bucket b, grouped by key.
func (e *Engine) noteAlias(b *bucket, alias string) {
	if alias == "" {
		return
	}
	a := &e.aliases
	n := int(b.k.holder.key)
	if n > e.table.values.len() {
		// Not a number of the values (absentText): nothing to note it by.
		b.KeyAlias = firstAlias(b.KeyAlias, alias)
		return
	}
	if a.values == e.table.values && n < len(a.of) {
		k := &a.of[n]
		if !k.many && len(alias) == len(k.alias) &&
			(unsafe.StringData(alias) == unsafe.StringData(k.alias) || unsafe.StringData(alias) == k.alt) {
			// Every call of the key came with this alias, or with none:
			// b's is it or empty.
			if b.KeyAlias == "" {
				b.KeyAlias = k.alias
			}
			return
		}
	}
	b.KeyAlias = firstAlias(b.KeyAlias, alias)
	if a.values != e.table.values {
		a.values, a.of = e.table.values, a.of[:0]
	}
	if n >= len(a.of) {
		a.of = append(a.of, make([]keyAlias, n+1-len(a.of))...)
	}
	switch k := &a.of[n]; {
	case k.many:
	case k.alias == "":
		k.alias = alias
	case alias != k.alias:
		k.many = true
	case k.alt == nil && unsafe.StringData(alias) != unsafe.StringData(k.alias):
		k.alt = unsafe.StringData(alias)
	}
}
