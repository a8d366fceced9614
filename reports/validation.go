package reports

import (
	"io"

	"github.com/tokenfare/tokenfare/reports/textout"
	"github.com/tokenfare/tokenfare/tariffs"
)

// Validation is what `tariffs validate` found in a set of tariff files.
type Validation struct {
	Problems tariffs.Problems
	// Files is how many tariff files were read: with an overlay or a price
	// list replacing a provider, more than the catalog's providers.
	Files int
	// Catalog is the catalog the files make; nil when a problem is an error.
	Catalog *tariffs.Catalog
	// Passed says the problems are no findings (warnings, without
	// --strict): the summary line follows them.
	Passed bool
}

// WriteValidation writes each problem as file:line: message, one a line,
// then, when v passed, the summary: "ok: 3 file(s), 2 provider(s),
// 5 model(s), 7 version(s)" and the warnings' count, if any. Text from
// tariff files is escaped.
func WriteValidation(w io.Writer, v Validation) error {
	out := &textout.Writer{W: &textout.Escaping{W: w}}
	warnings := 0
	for _, p := range v.Problems {
		out.Printf("%s\n", p.Error())
		if p.Warning {
			warnings++
		}
	}
	if !v.Passed || v.Catalog == nil {
		return out.Err
	}
	models, versions := 0, 0
	for _, p := range v.Catalog.Providers {
		models += len(p.Models)
		versions += len(p.Versions)
	}
	out.Printf("ok: %d file(s), %d provider(s), %d model(s), %d version(s)", v.Files, len(v.Catalog.Providers), models, versions)
	if warnings > 0 {
		out.Printf(", %d warning(s)", warnings)
	}
	out.Printf("\n")
	return out.Err
}
