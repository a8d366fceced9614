package tariffs

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/tokenfare/tokenfare/internal/yamlin"
)

//go:embed catalog/*.yaml catalog/lists/*.yaml
var embedded embed.FS

// Catalog is the set of provider tariffs prices are looked up in.
type Catalog struct {
	Providers []*Provider
	// Files are the tariff files Load read, in order: those an overlay or
	// a price list replaced too, so there may be more than Providers.
	// Empty for a catalog built by New.
	Files      []string
	hosts      map[string]map[string]*Model // host → lowercase name → model
	firstParty map[string]*Model            // the names of calls with no host known
	byID       map[string]*Model
}

// Load builds a catalog from base, a tariff file or a folder of them (""
// for the catalog embedded in the binary), then applies each overlay in
// order. An overlay is a tariff file or folder too: a provider it defines
// replaces the provider of the same name, wholly and in place, and a
// provider the catalog lacks is added; every other provider stays. The
// catalog is nil when any problem is not a warning.
func Load(base string, overlays ...string) (*Catalog, Problems) {
	return LoadLists(base, nil, overlays...)
}

// LoadLists is Load with price lists chosen from the binary: each replaces
// the provider of its name after base is read and before the overlays are
// applied, so an overlay still has the last word.
func LoadLists(base string, lists []PriceList, overlays ...string) (*Catalog, Problems) {
	if base == "" && len(lists) == 0 && len(overlays) == 0 {
		return builtIn()
	}
	return loadLists(base, lists, overlays...)
}

// embeddedOnce holds the embedded catalog, built once per process: it is
// never changed once built (lookups cache quotes with atomic operations
// only), so every command and test of a process shares it.
var embeddedOnce = sync.OnceValues(func() (*Catalog, Problems) { return loadLists("", nil) })

// builtIn returns the embedded catalog and its problems, built once.
func builtIn() (*Catalog, Problems) {
	cat, ps := embeddedOnce()
	return cat, slices.Clone(ps)
}

// loadLists builds a catalog anew (LoadLists).
func loadLists(base string, lists []PriceList, overlays ...string) (*Catalog, Problems) {
	var providers, over []*Provider
	var problems, ps Problems
	var files, names []string
	if base == "" {
		providers, problems, files = embeddedProviders()
	} else {
		providers, problems, files = readPath(base)
	}
	for _, l := range lists {
		over, ps, names = l.providers()
		problems, files = append(problems, ps...), append(files, names...)
		providers = overlay(providers, over)
	}
	for _, o := range overlays {
		over, ps, names = readPath(o)
		problems, files = append(problems, ps...), append(files, names...)
		providers = overlay(providers, over)
	}
	cat, ps := New(providers)
	problems = append(problems, ps...)
	if len(problems.Errors()) > 0 {
		return nil, problems
	}
	cat.Files = files
	return cat, problems
}

// Files lists the tariff files path names: the file itself, or the *.yaml
// and *.yml files at the top of a folder, in name order.
func Files(path string) ([]string, error) {
	st, err := os.Stat(path)
	if err != nil {
		if pe, ok := err.(*os.PathError); ok {
			err = pe.Err
		}
		return nil, fmt.Errorf("cannot read tariffs: %w", err)
	}
	if !st.IsDir() {
		return []string{path}, nil
	}
	var files []string
	for _, pat := range []string{"*.yaml", "*.yml"} {
		m, _ := filepath.Glob(filepath.Join(path, pat))
		files = append(files, m...)
	}
	sort.Strings(files)
	if len(files) == 0 {
		return nil, errors.New("no tariff files (*.yaml, *.yml) in the folder")
	}
	return files, nil
}

// readPath parses the tariff files path names, and returns their names.
// Files with errors give no provider.
func readPath(path string) ([]*Provider, Problems, []string) {
	files, err := Files(path)
	if err != nil {
		return nil, Problems{{File: path, Msg: err.Error()}}, nil
	}
	return parseFiles(files, "", yamlin.ReadFile)
}

// embeddedProviders parses the catalog embedded in the binary.
func embeddedProviders() ([]*Provider, Problems, []string) {
	files, _ := fs.Glob(embedded, "catalog/*.yaml")
	return parseFiles(files, "tariffs/", func(name string) ([]byte, error) { return fs.ReadFile(embedded, name) })
}

// parseFiles parses each file read with read, in order, and returns the
// names of the files read; problems and names name a file as prefix
// followed by its name in files. The files are parsed on up to
// GOMAXPROCS goroutines (the embedded catalog's YAML is most of a
// command's start-up), their results kept in the files' order.
func parseFiles(files []string, prefix string, read func(string) ([]byte, error)) ([]*Provider, Problems, []string) {
	type parsed struct {
		p  *Provider
		ps Problems
	}
	out := make([]parsed, len(files))
	next := make(chan int, len(files))
	for i := range files {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(files)) {
		wg.Go(func() {
			for i := range next {
				out[i].p, out[i].ps = parseFile(prefix+files[i], files[i], read)
			}
		})
	}
	wg.Wait()
	var providers []*Provider
	var problems Problems
	names := make([]string, 0, len(files))
	for i, f := range files {
		names = append(names, prefix+f)
		problems = append(problems, out[i].ps...)
		if out[i].p != nil {
			providers = append(providers, out[i].p)
		}
	}
	return providers, problems, names
}

// parseFile reads the file f with read and parses it as name.
func parseFile(name, f string, read func(string) ([]byte, error)) (*Provider, Problems) {
	data, err := read(f)
	if err != nil {
		return nil, Problems{{File: name, Msg: err.Error()}}
	}
	return Parse(name, data)
}

// overlay returns base with the providers of over in place of those of the
// same name; providers of over that base lacks come last. Two providers of
// one name in over are both kept, for New to report.
func overlay(base, over []*Provider) []*Provider {
	byName := map[string][]*Provider{}
	for _, p := range over {
		byName[p.Name] = append(byName[p.Name], p)
	}
	placed := map[string]bool{}
	out := make([]*Provider, 0, len(base)+len(over))
	for _, p := range base {
		switch {
		case byName[p.Name] == nil:
			out = append(out, p)
		case !placed[p.Name]:
			out = append(out, byName[p.Name]...)
			placed[p.Name] = true
		}
	}
	for _, p := range over {
		if !placed[p.Name] {
			out = append(out, p)
		}
	}
	return out
}

// New builds a catalog of providers, checking that provider names and
// model ids are unique across them and model names unique within each
// host: among the lists of one host, and among the first-party lists that
// price calls with no host known (Provider.FirstParty).
//
// A model that replaces another (Model.Replaces) takes every name of that
// model on the hosts both lists price, whichever file comes first; the
// replaced model keeps its names elsewhere and stays in the catalog. A
// model replaced by two, or replacing one of its own file or of no shared
// host, is an error; replacing an id no file defines is a warning (a
// folder of imported files checked alone).
func New(providers []*Provider) (*Catalog, Problems) {
	c := &Catalog{Providers: providers, hosts: map[string]map[string]*Model{}, firstParty: map[string]*Model{}, byID: map[string]*Model{}}
	var problems Problems
	seen := map[string]*Provider{}
	for _, p := range providers {
		if q := seen[p.Name]; q != nil {
			problems = append(problems, Problem{File: p.File, Line: p.Line, Msg: fmt.Sprintf("provider %q is also defined in %s:%d", p.Name, q.File, q.Line)})
		}
		seen[p.Name] = p
		spaces := c.spacesOf(p)
		for _, m := range p.Models {
			if o := c.byID[m.ID]; o != nil {
				problems = append(problems, Problem{File: p.File, Line: m.Line, Msg: fmt.Sprintf("model %q is also defined in %s:%d", m.ID, o.Provider.File, o.Line)})
				continue
			}
			c.byID[m.ID] = m
			for i, n := range m.Names {
				if pr, ok := claim(spaces, m, n); !ok {
					pr.File, pr.Line = p.File, m.nameLines[i]
					problems = append(problems, pr)
				}
			}
		}
	}
	return c, append(problems, c.replace()...)
}

// replace gives each replacing model the names of the model it replaces,
// in the name spaces their lists share.
func (c *Catalog) replace() Problems {
	var problems Problems
	by := map[*Model]*Model{}
	for _, m := range c.Models() {
		if m.Replaces == "" {
			continue
		}
		x := c.byID[m.Replaces]
		problem := func(warning bool, format string, args ...any) {
			problems = append(problems, Problem{File: m.Provider.File, Line: m.Line, Msg: fmt.Sprintf(format, args...), Warning: warning})
		}
		shared := c.sharedSpaces(m.Provider, x)
		switch {
		case x == nil:
			problem(true, "model %q replaces %q, which no file of this catalog defines: nothing is replaced", m.ID, m.Replaces)
		case x.Provider == m.Provider:
			problem(false, "model %q replaces %q of its own file: a model replaces one of another file", m.ID, x.ID)
		case by[x] != nil:
			problem(false, "model %q is replaced by %q and %q", x.ID, by[x].ID, m.ID)
		case len(shared) == 0:
			problem(false, "model %q replaces %q, whose file prices none of its hosts (%s)", m.ID, x.ID, strings.Join(m.Provider.Hosts, ", "))
		default:
			by[x] = m
			for _, s := range shared {
				for _, n := range x.Names {
					if key := strings.ToLower(n); s[key] == x {
						s[key] = m
					}
				}
			}
		}
	}
	return problems
}

// sharedSpaces returns the name spaces of both p's lists and x's: the
// hosts both price, and that of calls with no host when both are first
// parties. None when x is nil.
func (c *Catalog) sharedSpaces(p *Provider, x *Model) []map[string]*Model {
	if x == nil {
		return nil
	}
	var out []map[string]*Model
	for _, h := range p.Hosts {
		if slices.Contains(x.Provider.Hosts, h) {
			out = append(out, c.hosts[h])
		}
	}
	if p.FirstParty() && x.Provider.FirstParty() {
		out = append(out, c.firstParty)
	}
	return out
}

// nameSpace is the names of one host's lists ("" for calls with no host).
type nameSpace struct {
	host  string
	names map[string]*Model
}

// spacesOf returns the name spaces p's names are claimed in.
func (c *Catalog) spacesOf(p *Provider) []nameSpace {
	var out []nameSpace
	for _, h := range p.Hosts {
		if c.hosts[h] == nil {
			c.hosts[h] = map[string]*Model{}
		}
		out = append(out, nameSpace{h, c.hosts[h]})
	}
	if p.FirstParty() {
		out = append(out, nameSpace{"", c.firstParty})
	}
	return out
}

// claim gives name n to m in each space; the first space where another
// model holds it already is a problem (without its place), unless one of
// the two replaces the other: the replacing model keeps or takes it.
func claim(spaces []nameSpace, m *Model, n string) (Problem, bool) {
	key := strings.ToLower(n)
	for _, s := range spaces {
		if o := s.names[key]; o != nil && o != m && o.Replaces != m.ID && m.Replaces != o.ID {
			among := "for host " + s.host
			if s.host == "" {
				among = "among first-party lists (calls with no host)"
			}
			return Problem{Msg: fmt.Sprintf("name %q is claimed by models %q (%s:%d) and %q %s", n, o.ID, o.Provider.File, o.Line, m.ID, among)}, false
		}
	}
	for _, s := range spaces {
		if o := s.names[key]; o == nil || o.Replaces != m.ID {
			s.names[key] = m
		}
	}
	return Problem{}, true
}

// Resolve returns the model a gateway logs under name when no host is
// known for the call: ResolveOn("", name).
func (c *Catalog) Resolve(name string) (*Model, bool) {
	m, _, ok := c.ResolveOn("", name)
	return m, ok
}

// ResolveOn returns the model a call served by host logs under name, and
// the host it was looked up among. Names match without regard to case.
//
// With no host known, the name is looked up among the first-party lists;
// failing that, a leading segment that names a known host ("azure/gpt-4o")
// makes that the host. Among one host's lists, the name is tried as
// logged, then without a leading segment naming a known host (LiteLLM's
// provider route, "azure/" or "openai/"), then, on bedrock, without
// LiteLLM's route word (converse/, invoke/). A name is never looked up
// among another host's lists: a host with no list, or without the name,
// leaves the call unpriced (see PricesHost).
func (c *Catalog) ResolveOn(host, name string) (*Model, string, bool) {
	key := strings.ToLower(name)
	host = NormalizeHost(host)
	if host == "" {
		if m, ok := c.firstParty[key]; ok {
			return m, "", true
		}
		if host = HostOfPrefix(key); host == "" {
			return nil, "", false
		}
	}
	names := c.hosts[host]
	if names == nil {
		return nil, host, false
	}
	if m, ok := names[key]; ok {
		return m, host, true
	}
	if HostOfPrefix(key) != "" {
		key = key[strings.IndexByte(key, '/')+1:]
		if m, ok := names[key]; ok {
			return m, host, true
		}
	}
	if host == "bedrock" {
		for _, route := range []string{"converse/", "invoke/"} {
			if m, ok := names[strings.TrimPrefix(key, route)]; ok && strings.HasPrefix(key, route) {
				return m, host, true
			}
		}
	}
	return nil, host, false
}

// PricesHost reports whether some list of the catalog prices calls of
// host ("" : calls with no host known).
func (c *Catalog) PricesHost(host string) bool {
	if host == "" {
		return len(c.firstParty) > 0
	}
	return c.hosts[NormalizeHost(host)] != nil
}

// Model returns the model with tariff id id, or nil.
func (c *Catalog) Model(id string) *Model { return c.byID[id] }

// Models returns every model of the catalog, by provider and file order.
func (c *Catalog) Models() []*Model {
	var out []*Model
	for _, p := range c.Providers {
		out = append(out, p.Models...)
	}
	return out
}

// HostModel is a host whose lists price a model, and the model they give.
type HostModel struct {
	Host  string
	Model *Model
}

// HostsOf returns the hosts whose lists price a call logged under name,
// each with the model its lists give, in host name order: where the
// catalog would price the name had the call been served there. A leading
// segment naming a known host is dropped, as ResolveOn drops it.
func (c *Catalog) HostsOf(name string) []HostModel {
	hosts := make([]string, 0, len(c.hosts))
	for h := range c.hosts {
		hosts = append(hosts, h)
	}
	sort.Strings(hosts)
	var out []HostModel
	for _, h := range hosts {
		if m, _, ok := c.ResolveOn(h, name); ok {
			out = append(out, HostModel{Host: h, Model: m})
		}
	}
	return out
}
