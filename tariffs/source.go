package tariffs

import "fmt"

// SourceKind says how close a source stands to the provider's own word.
// The kinds are ordered from the weakest (SourceUnstated) to the strongest
// (SourceOfficial).
type SourceKind uint8

const (
	// SourceUnstated is a source whose file gives no kind.
	SourceUnstated SourceKind = iota
	// SourceSecondary is anything the provider did not publish: a blog, a
	// news article, a third-party repository, issue or pull request, a
	// copy of the provider's page kept by someone else.
	SourceSecondary
	// SourceChangelog is a dated announcement by the provider itself: its
	// change log, news post or release notes.
	SourceChangelog
	// SourceOfficial is the provider's own current page: its price list,
	// model page or deprecation table (or, for a holiday calendar, the
	// authority that sets the holidays).
	SourceOfficial
)

var sourceKindNames = [...]string{"unstated", "secondary", "changelog", "official"}

// String returns the kind as tariff files write it ("unstated" when none).
func (k SourceKind) String() string {
	if int(k) < len(sourceKindNames) {
		return sourceKindNames[k]
	}
	return fmt.Sprintf("SourceKind(%d)", k)
}

// ParseSourceKind reads a kind as tariff files write it: official,
// changelog or secondary.
func ParseSourceKind(s string) (SourceKind, error) {
	for k, name := range sourceKindNames {
		if k != int(SourceUnstated) && name == s {
			return SourceKind(k), nil
		}
	}
	return SourceUnstated, fmt.Errorf("source kind %q is not one of official, changelog, secondary", s)
}

// SourceKindOf returns the kind of the provider's source with this URL,
// and whether the provider lists it.
func (p *Provider) SourceKindOf(url string) (SourceKind, bool) {
	for _, s := range p.Sources {
		if s.URL == url {
			return s.Kind, true
		}
	}
	return SourceUnstated, false
}

// weakestSource returns the weakest kind among the provider's sources
// (SourceUnstated when it lists none).
func (p *Provider) weakestSource() SourceKind {
	if len(p.Sources) == 0 {
		return SourceUnstated
	}
	k := SourceOfficial
	for _, s := range p.Sources {
		k = min(k, s.Kind)
	}
	return k
}

// Secondary reports whether every source of the provider is secondary: a
// price list the provider did not publish, such as a peer table imported
// with tokenfare tariffs import. A price it gives rests on that table, not
// on the provider's word.
func (p *Provider) Secondary() bool {
	if len(p.Sources) == 0 {
		return false
	}
	for _, s := range p.Sources {
		if s.Kind != SourceSecondary {
			return false
		}
	}
	return true
}
