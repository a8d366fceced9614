package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/tokenfare/tokenfare/tariffs"
	"github.com/tokenfare/tokenfare/tariffs/drift"
)

// formatNames are the tables' names as notes write them.
var formatNames = map[drift.Format]string{
	drift.LiteLLM:     "LiteLLM's model_prices_and_context_window.json",
	drift.GenAIPrices: "a genai-prices provider file",
	drift.ModelsDev:   "models.dev's api.json",
}

// q quotes s as a YAML double-quoted scalar (JSON's escapes are YAML's).
func q(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// yaml writes the host's tariff file.
func (h *hostList) yaml(opts Options) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Imported by tokenfare tariffs import from peer price tables: the models the\n"+
		"# catalog lacks on host %s. Every price rests on a secondary source (the tables\n"+
		"# under sources), not on the provider's own list; compare it with the provider's\n"+
		"# page before relying on it. Regenerate rather than edit.\n", h.host)
	fmt.Fprintf(&b, "provider: %s\nhosts: [%s]\ncurrency: USD\ntimezone: UTC\n", q("imported-"+h.host), q(h.host))
	b.WriteString("# The tables do not say which instant of a call decides its price.\nbilling_time: end\nsources:\n")
	for _, t := range h.tables {
		fmt.Fprintf(&b, "  - url: %s\n    kind: secondary\n    checked: %s\n    note: %s\n", q(t.URL), opts.Checked, q(tableNote(t)))
	}
	b.WriteString("models:\n")
	for _, m := range h.models {
		fmt.Fprintf(&b, "  - id: %s\n    names: [%s]\n", q(m.id), q(m.name))
		if m.replaces != "" {
			fmt.Fprintf(&b, "    replaces: %s\n", q(m.replaces))
		}
		fmt.Fprintf(&b, "    note: %s\n", q(m.note()))
	}
	h.version(&b, opts)
	return b.Bytes()
}

// tableNote says what the table is and where it was read.
func tableNote(t *Table) string {
	s := fmt.Sprintf("%s, read from %s", formatNames[t.DB.Format], t.DB.File)
	if t.Commit != "" {
		s += " at commit " + t.Commit
	}
	return s + "; imported, a secondary source"
}

// note says where the model's prices come from, and what import changed.
func (m *model) note() string {
	s := fmt.Sprintf("imported from %s %s:%d (%s), a secondary source", formatNames[m.entry.Format], m.entry.File, m.entry.Line, m.entry.Name)
	if m.replaces != "" {
		s += "; replaces the catalog's " + m.replaces
	}
	for _, n := range m.notes {
		s += "; " + n
	}
	return s
}

// version writes the one version: prices, tiers, tools, service tiers.
func (h *hostList) version(b *bytes.Buffer, opts Options) {
	eff := opts.Effective.UTC()
	fmt.Fprintf(b, "versions:\n  - effective: %s\n    name: %s\n", eff.Format(time.RFC3339), q("imported-"+eff.Format(time.DateOnly)))
	b.WriteString("    note: prices as the tables under sources state them; no history before this instant\n")
	b.WriteString("    prices:\n")
	for _, m := range h.models {
		fmt.Fprintf(b, "      %s:\n        standard: %s\n", q(m.id), rateSet(&m.offer.Base))
	}
	h.tiers(b, "    ", func(m *model) *drift.Offer { return &m.offer })
	h.tools(b)
	h.serviceTiers(b)
}

// tiers writes the prompt-size tiers of each model's offer that get
// gives, at indent.
func (h *hostList) tiers(b *bytes.Buffer, indent string, get func(*model) *drift.Offer) {
	head := false
	for _, m := range h.models {
		o := get(m)
		if o == nil || len(o.Tiers) == 0 {
			continue
		}
		if !head {
			b.WriteString(indent + "tiers:\n")
			head = true
		}
		fmt.Fprintf(b, "%s  %s:\n", indent, q(m.id))
		for i := range o.Tiers {
			r := merged(&o.Base, &o.Tiers[i].Rates)
			fmt.Fprintf(b, "%s    - above: %d\n%s      prices:\n%s        standard: %s\n", indent, o.Tiers[i].Above, indent, indent, rateSet(&r))
		}
	}
}

// tools writes the fees per tool use the tables list, per 1,000 uses.
func (h *hostList) tools(b *bytes.Buffer) {
	head := false
	for _, m := range h.models {
		var fees []string
		for _, u := range tariffs.Tools {
			if m.offer.Base.Listed(u) {
				fees = append(fees, fmt.Sprintf("%s: {price: %s, per: 1000}", u, m.offer.Base.Price(u).Shift(3)))
			}
		}
		if len(fees) == 0 {
			continue
		}
		if !head {
			b.WriteString("    tools:\n")
			head = true
		}
		fmt.Fprintf(b, "      %s: {%s}\n", q(m.id), strings.Join(fees, ", "))
	}
}

// serviceTiers writes the batch, flex and priority rates the tables list.
func (h *hostList) serviceTiers(b *bytes.Buffer) {
	head := false
	for s := tariffs.Batch; int(s) < tariffs.NumServiceTiers; s++ {
		var models []*model
		for _, m := range h.models {
			if m.offer.Service[s] != nil {
				models = append(models, m)
			}
		}
		if len(models) == 0 {
			continue
		}
		if !head {
			b.WriteString("    service_tiers:\n")
			head = true
		}
		fmt.Fprintf(b, "      %s:\n        prices:\n", s)
		for _, m := range models {
			fmt.Fprintf(b, "          %s:\n            standard: %s\n", q(m.id), rateSet(&m.offer.Service[s].Base))
		}
		sub := &hostList{host: h.host, models: models}
		sub.tiers(b, "        ", func(m *model) *drift.Offer { return m.offer.Service[s] })
	}
}

// rateSet writes the prices r lists, as a flow mapping.
func rateSet(r *tariffs.Rates) string {
	var parts []string
	for _, u := range rateUsages {
		if r.Listed(u) {
			parts = append(parts, fmt.Sprintf("%s: %s", u, r.Price(u)))
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}
