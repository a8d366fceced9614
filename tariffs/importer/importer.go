package importer

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/tokenfare/tokenfare/tariffs"
	"github.com/tokenfare/tokenfare/tariffs/drift"
)

// Options says what to import and when its prices take effect.
type Options struct {
	// Effective is the instant the imported prices take effect: the
	// table's date. Calls before it stay unpriced.
	Effective time.Time
	// Checked is the date (YYYY-MM-DD) the tables' sources are checked
	// on: the date of the tables.
	Checked string
	// Providers keeps only entries whose host or table provider is one
	// of these (a litellm_provider, a genai-prices or models.dev provider
	// id, or a tokenfare host); every entry when empty.
	Providers []string
	// Models keeps only entries whose name, as the table lists it or as
	// the file writes it, is one of these; a trailing * matches any
	// ending. Every entry when empty.
	Models []string
	// Replace imports models the catalog prices on their host too, each
	// replacing the catalog's model (replaces:).
	Replace bool
}

// Table is one peer table read, and where it is published.
type Table struct {
	DB     *drift.Database
	URL    string // where the table is published: the source written
	Commit string // the commit it was taken at; "" when not known
}

// Count is what became of one table's entries: each of Read is imported,
// not selected, or skipped for a reason.
type Count struct {
	Table       *Table
	Read        int
	Imported    int
	NotSelected int
	Skipped     [NumReasons]int
}

// File is one tariff file written: the imported models of one host.
type File struct {
	Name   string // imported-<host>.yaml
	Host   string
	Models int
	Data   []byte
}

// Result is what Import made: the files (by host name), what became of
// each table's entries, and every entry skipped, in table order.
type Result struct {
	Files   []File
	Counts  []Count
	Skipped []Skipped
}

// model is an entry to be written.
type model struct {
	id, name string
	replaces string // the catalog model's id, with Options.Replace
	entry    *drift.Entry
	table    *Table
	offer    drift.Offer
	notes    []string
}

// hostList is the models imported for one host, in table order.
type hostList struct {
	host   string
	models []*model
	tables []*Table
}

type importer struct {
	cat      *tariffs.Catalog
	opts     Options
	hosts    map[string]*hostList
	names    map[string]*model // host + " " + lowercase name → the model imported under it
	replaced map[*tariffs.Model]*model
	res      Result
}

// Import builds a tariff file per host for the entries of tables the
// catalog lacks (see the package documentation). It fails only when a
// file it built does not load with the catalog, which is a fault of its
// own.
func Import(cat *tariffs.Catalog, tables []*Table, opts Options) (*Result, error) {
	if opts.Effective.IsZero() {
		return nil, errors.New("no effective instant: the imported prices need the instant they take effect")
	}
	im := &importer{cat: cat, opts: opts, hosts: map[string]*hostList{}, names: map[string]*model{}, replaced: map[*tariffs.Model]*model{}}
	for _, t := range tables {
		im.res.Counts = append(im.res.Counts, im.table(t))
	}
	if err := im.files(); err != nil {
		return nil, err
	}
	return &im.res, nil
}

// table imports the entries of one table.
func (im *importer) table(t *Table) Count {
	c := Count{Table: t, Read: t.DB.Read}
	for _, s := range t.DB.Skipped {
		im.skip(&c, t, Skipped{Line: s.Line, Name: s.Name, Reason: Unreadable, Detail: s.Reason})
	}
	for _, s := range t.DB.Removed {
		im.skip(&c, t, Skipped{Line: s.Line, Name: s.Name, Reason: Removed, Detail: "marked removed in the table"})
	}
	for _, e := range t.DB.Entries {
		if !im.selected(e) {
			c.NotSelected++
			continue
		}
		m, reason, detail := im.entry(t, e)
		if m == nil {
			im.skip(&c, t, Skipped{Line: e.Line, Name: e.Name, Reason: reason, Detail: detail})
			continue
		}
		c.Imported++
		im.add(m)
	}
	return c
}

func (im *importer) skip(c *Count, t *Table, s Skipped) {
	s.File = t.DB.File
	c.Skipped[s.Reason]++
	im.res.Skipped = append(im.res.Skipped, s)
}

// selected reports whether the options' filters keep entry e.
func (im *importer) selected(e *drift.Entry) bool {
	if len(im.opts.Providers) > 0 && !slices.ContainsFunc(im.opts.Providers, func(p string) bool {
		return strings.EqualFold(p, e.Provider) || tariffs.NormalizeHost(p) == e.Host
	}) {
		return false
	}
	if len(im.opts.Models) == 0 {
		return true
	}
	written := writtenName(e.Name, e.Host)
	return slices.ContainsFunc(im.opts.Models, func(m string) bool { return nameMatches(m, e.Name) || nameMatches(m, written) })
}

// nameMatches reports whether name is pattern, or starts with it when it
// ends in *; without regard to case.
func nameMatches(pattern, name string) bool {
	pattern, name = strings.ToLower(pattern), strings.ToLower(name)
	if p, ok := strings.CutSuffix(pattern, "*"); ok {
		return strings.HasPrefix(name, p)
	}
	return pattern == name
}

// entry builds the model for e, or says why it is left out.
func (im *importer) entry(t *Table, e *drift.Entry) (*model, Reason, string) {
	switch {
	case !e.PerToken():
		return nil, NotPerToken, fmt.Sprintf("mode %s: not priced per token like a chat model", e.Mode)
	case !e.Priced():
		return nil, NoPrice, "states no price per token or per call"
	case e.Host == "":
		return nil, NoHost, "the table does not say who serves it"
	case !tariffs.KnownHost(e.Host) || e.Host == tariffs.UnknownHost:
		return nil, UnknownHost, fmt.Sprintf("host %s is not one tokenfare knows (docs/tariffs.md, hosts)", e.Host)
	}
	name := writtenName(e.Name, e.Host)
	if h := tariffs.HostOfPrefix(name); h != "" && h != e.Host && tariffs.FirstPartyHost(e.Host) {
		return nil, OtherHostName, fmt.Sprintf("name %s starts with host %s, which a %s list may not price", name, h, e.Host)
	}
	if prev := im.names[e.Host+" "+strings.ToLower(name)]; prev != nil {
		return nil, Duplicate, fmt.Sprintf("%s on host %s is imported already from %s:%d", name, e.Host, prev.entry.File, prev.entry.Line)
	}
	m := &model{id: "imported/" + e.Host + "/" + name, name: name, entry: e, table: t}
	if reason, detail, ok := im.catalogName(m); !ok {
		return nil, reason, detail
	}
	offer, err := e.OfferAt(im.opts.Effective)
	if err != nil {
		return nil, TimeOfUse, fmt.Sprintf("%v: write its periods by hand", err)
	}
	notes, err := checkOffer(&offer)
	if err != nil {
		return nil, Incomplete, err.Error()
	}
	m.offer, m.notes = offer, notes
	return m, 0, ""
}

// catalogName checks m's name against the catalog: a name the catalog
// prices on the host is left out, or with Options.Replace replaces the
// catalog's model; a first party's name another first party prices is
// always left out.
func (im *importer) catalogName(m *model) (Reason, string, bool) {
	host := m.entry.Host
	cm, _, ok := im.cat.ResolveOn(host, m.name)
	if !ok {
		cm, _, ok = im.cat.ResolveOn(host, m.entry.Name)
	}
	if !ok && tariffs.FirstPartyHost(host) {
		if o, found := im.cat.Resolve(m.name); found && !slices.Contains(o.Provider.Hosts, host) {
			return InCatalog, fmt.Sprintf("the catalog's %s (%s) has this name among calls with no host known", o.ID, strings.Join(o.Provider.Hosts, ", ")), false
		}
	}
	switch {
	case !ok:
		return 0, "", true
	case !im.opts.Replace:
		return InCatalog, fmt.Sprintf("the catalog prices it on host %s as %s (--replace takes the table's price)", host, cm.ID), false
	case im.replaced[cm] != nil:
		prev := im.replaced[cm].entry
		return Duplicate, fmt.Sprintf("the catalog's %s is replaced already by %s:%d (%s)", cm.ID, prev.File, prev.Line, prev.Name), false
	}
	m.replaces = cm.ID
	im.replaced[cm] = m
	return 0, "", true
}

// add files m under its host.
func (im *importer) add(m *model) {
	h := im.hosts[m.entry.Host]
	if h == nil {
		h = &hostList{host: m.entry.Host}
		im.hosts[m.entry.Host] = h
	}
	h.models = append(h.models, m)
	if !slices.Contains(h.tables, m.table) {
		h.tables = append(h.tables, m.table)
	}
	im.names[m.entry.Host+" "+strings.ToLower(m.name)] = m
}

// writtenName is an entry's name as the host's list writes it: without a
// leading segment naming its host (openrouter/, vertex_ai/, azure/).
func writtenName(name, host string) string {
	if tariffs.HostOfPrefix(name) == host {
		return name[strings.IndexByte(name, '/')+1:]
	}
	return name
}

// files writes a file per host, in host name order, and checks that they
// parse and load with the catalog.
func (im *importer) files() error {
	hosts := make([]string, 0, len(im.hosts))
	for h := range im.hosts {
		hosts = append(hosts, h)
	}
	sort.Strings(hosts)
	var providers []*tariffs.Provider
	for _, h := range hosts {
		hl := im.hosts[h]
		f := File{Name: "imported-" + h + ".yaml", Host: h, Models: len(hl.models), Data: hl.yaml(im.opts)}
		p, ps := tariffs.Parse(f.Name, f.Data)
		if p == nil {
			return fmt.Errorf("the file written for host %s does not parse: %w", h, ps)
		}
		providers = append(providers, p)
		im.res.Files = append(im.res.Files, f)
	}
	if _, ps := tariffs.New(slices.Concat(im.cat.Providers, providers)); len(ps.Errors()) > 0 {
		return fmt.Errorf("the files written do not load with the catalog: %w", ps)
	}
	return nil
}
