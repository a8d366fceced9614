package tariffs

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
)

//go:embed catalog/*.yaml
var embedded embed.FS

// Catalog is the set of provider tariffs prices are looked up in.
type Catalog struct {
	Providers []*Provider
	byName    map[string]*Model
	byID      map[string]*Model
}

// Embedded returns the catalog that ships inside the binary.
func Embedded() (*Catalog, Problems) {
	sub, err := fs.Sub(embedded, "catalog")
	if err != nil {
		return nil, Problems{{File: "catalog", Msg: err.Error()}}
	}
	return Load(sub, "tariffs/catalog")
}

// LoadDir reads every *.yaml file in dir.
func LoadDir(dir string) (*Catalog, Problems) {
	if _, err := os.Stat(dir); err != nil {
		return nil, Problems{{File: dir, Msg: "cannot read tariff folder: " + strings.TrimPrefix(err.Error(), "stat "+dir+": ")}}
	}
	return Load(os.DirFS(dir), dir)
}

// Load reads every *.yaml and *.yml file at the top of fsys; prefix is put
// before file names in problems. The catalog is nil when any problem is not
// a warning.
func Load(fsys fs.FS, prefix string) (*Catalog, Problems) {
	var files []string
	for _, pat := range []string{"*.yaml", "*.yml"} {
		m, _ := fs.Glob(fsys, pat)
		files = append(files, m...)
	}
	sort.Strings(files)
	if len(files) == 0 {
		return nil, Problems{{File: prefix, Msg: "no tariff files (*.yaml) found"}}
	}
	var providers []*Provider
	var problems Problems
	for _, f := range files {
		name := path.Join(prefix, f)
		data, err := fs.ReadFile(fsys, f)
		if err != nil {
			problems = append(problems, Problem{File: name, Msg: err.Error()})
			continue
		}
		p, ps := Parse(name, data)
		problems = append(problems, ps...)
		if p != nil {
			providers = append(providers, p)
		}
	}
	cat, ps := New(providers)
	problems = append(problems, ps...)
	if len(problems.Errors()) > 0 {
		return nil, problems
	}
	return cat, problems
}

// New builds a catalog of providers, checking that provider names, model
// ids and model names are unique across them.
func New(providers []*Provider) (*Catalog, Problems) {
	c := &Catalog{Providers: providers, byName: map[string]*Model{}, byID: map[string]*Model{}}
	var problems Problems
	seen := map[string]*Provider{}
	for _, p := range providers {
		if q := seen[p.Name]; q != nil {
			problems = append(problems, Problem{File: p.File, Line: p.Line, Msg: fmt.Sprintf("provider %q is also defined in %s:%d", p.Name, q.File, q.Line)})
		}
		seen[p.Name] = p
		for _, m := range p.Models {
			if o := c.byID[m.ID]; o != nil {
				problems = append(problems, Problem{File: p.File, Line: m.Line, Msg: fmt.Sprintf("model %q is also defined in %s:%d", m.ID, o.Provider.File, o.Line)})
				continue
			}
			c.byID[m.ID] = m
			for i, n := range m.Names {
				key := strings.ToLower(n)
				if o := c.byName[key]; o != nil && o != m {
					problems = append(problems, Problem{File: p.File, Line: m.nameLines[i],
						Msg: fmt.Sprintf("name %q is claimed by models %q (%s:%d) and %q", n, o.ID, o.Provider.File, o.Line, m.ID)})
					continue
				}
				c.byName[key] = m
			}
		}
	}
	return c, problems
}

// Resolve returns the model a gateway logs under name. Names match without
// regard to case; a name not listed is tried again without its provider
// prefix ("openrouter/deepseek/deepseek-flash" → "deepseek/deepseek-flash" →
// "deepseek-flash").
func (c *Catalog) Resolve(name string) (*Model, bool) {
	for {
		if m, ok := c.byName[strings.ToLower(name)]; ok {
			return m, true
		}
		i := strings.IndexByte(name, '/')
		if i < 0 {
			return nil, false
		}
		name = name[i+1:]
	}
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
