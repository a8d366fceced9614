package cli

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

// warnNextVersions says on w, one line per provider, which known tariff
// versions take effect after the tariff a blend priced its calls at (the
// window's end for a historical blend) and touch a model with calls in it:
// the blend's prices stop being the tariff's then, and a scheduled blend
// must run again at that instant.
func warnNextVersions(w io.Writer, cat *tariffs.Catalog, bl *pricing.Blend) {
	at := bl.TariffAt
	if at.IsZero() {
		at = bl.Until
	}
	called := map[string]bool{}
	for _, m := range bl.Models {
		if m.Calls > 0 {
			called[m.Model] = true
		}
	}
	for _, u := range cat.Next(at, time.Time{}) {
		var ms []string
		for _, m := range u.Models {
			if called[m.ID] {
				ms = append(ms, m.ID)
			}
		}
		if len(ms) == 0 {
			continue
		}
		eff := u.Version.Effective.Format(time.RFC3339)
		fmt.Fprintf(w, "warning: %s version %s takes effect at %s, after the tariff this blend prices at (%s), for %s: blend again then (tokenfare tariffs next lists it), or now with --tariff-at %s\n",
			u.Provider.Name, u.Version.Name, eff, at.Format(time.RFC3339), strings.Join(ms, ", "), eff)
	}
}
