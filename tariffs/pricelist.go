package tariffs

import (
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
)

// listsDir is where the embedded catalog keeps its price lists: whole
// provider files, named <provider>-<list>.yaml, that are not part of the
// catalog unless chosen.
const listsDir = "catalog/lists"

// PriceList names a provider's alternative price list embedded in the
// binary, such as DeepSeek's CNY list: a whole provider file that, when
// chosen, replaces the catalog's provider of that name as an overlay does.
type PriceList struct {
	Provider string
	Name     string
}

// String returns the list as written on the command line: provider=name.
func (l PriceList) String() string { return l.Provider + "=" + l.Name }

// file is the list's path in the embedded file system.
func (l PriceList) file() string { return path.Join(listsDir, l.Provider+"-"+l.Name+".yaml") }

// PriceLists returns the price lists embedded in the binary, by provider
// and name.
func PriceLists() []PriceList {
	files, _ := fs.Glob(embedded, listsDir+"/*.yaml")
	var out []PriceList
	for _, f := range files {
		base := strings.TrimSuffix(path.Base(f), ".yaml")
		if i := strings.LastIndexByte(base, '-'); i > 0 {
			out = append(out, PriceList{Provider: base[:i], Name: base[i+1:]})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// ParsePriceList reads "provider=name" and checks that the binary holds
// that list. The error names the lists there are.
func ParsePriceList(s string) (PriceList, error) {
	provider, name, ok := strings.Cut(s, "=")
	l := PriceList{Provider: strings.TrimSpace(provider), Name: strings.TrimSpace(name)}
	if !ok || l.Provider == "" || l.Name == "" {
		return PriceList{}, fmt.Errorf("price list %q is not PROVIDER=LIST (e.g. deepseek=cny)", s)
	}
	var known []string
	for _, k := range PriceLists() {
		if k == l {
			return l, nil
		}
		known = append(known, k.String())
	}
	return PriceList{}, fmt.Errorf("no price list %s in the catalog (there are: %s)", l, strings.Join(known, ", "))
}

// providers parses the list's file. A file whose provider is not the
// list's is an error: choosing it would replace the wrong provider.
func (l PriceList) providers() ([]*Provider, Problems, []string) {
	ps, problems, names := parseFiles([]string{l.file()}, "tariffs/", func(name string) ([]byte, error) { return fs.ReadFile(embedded, name) })
	for _, p := range ps {
		if p.Name != l.Provider {
			problems = append(problems, Problem{File: p.File, Line: p.Line,
				Msg: fmt.Sprintf("price list %s defines provider %q, not %q", l, p.Name, l.Provider)})
			return nil, problems, names
		}
	}
	return ps, problems, names
}
