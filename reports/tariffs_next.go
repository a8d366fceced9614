package reports

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/tokenfare/tokenfare/internal/textout"
	"github.com/tokenfare/tokenfare/tariffs"
)

// Next is the result of tariffs next: the versions taking effect after
// After, up to Until inclusive (zero: no bound), as tariffs.Catalog.Next
// finds them.
type Next struct {
	After    time.Time
	Until    time.Time
	Upcoming []tariffs.Upcoming
}

type nextDoc struct {
	After    string           `json:"after"`
	Until    string           `json:"until,omitempty"`
	Versions []nextVersionDoc `json:"versions"`
}

type nextVersionDoc struct {
	Provider  string   `json:"provider"`
	Version   string   `json:"version"`
	Effective string   `json:"effective"`
	Source    string   `json:"source"` // file:line of the version
	Models    []string `json:"models"`
}

func newNextDoc(n *Next) any {
	doc := &nextDoc{After: n.After.UTC().Format(time.RFC3339), Versions: []nextVersionDoc{}}
	if !n.Until.IsZero() {
		doc.Until = n.Until.UTC().Format(time.RFC3339)
	}
	for _, u := range n.Upcoming {
		models := []string{}
		for _, m := range u.Models {
			models = append(models, m.ID)
		}
		doc.Versions = append(doc.Versions, nextVersionDoc{Provider: u.Provider.Name, Version: u.Version.Name,
			Effective: u.Version.Effective.UTC().Format(time.RFC3339),
			Source:    u.Provider.File + ":" + strconv.Itoa(u.Version.Line), Models: models})
	}
	return doc
}

// TariffsNext writes the versions about to take effect in format f: a
// table (one line per provider, with the number of its models; -o json
// lists them), CSV (the JSON fields, models joined by
// spaces), JSON or YAML ({after, until, versions: [{provider, version,
// effective, source, models}]}, versions empty when none is known).
func TariffsNext(w io.Writer, f Format, n *Next) error {
	return writeAs(w, f, "the next versions", n, tableNext, csvNext, newNextDoc)
}

func tableNext(out io.Writer, n *Next) error {
	w := &textout.Writer{W: out}
	doc := newNextDoc(n).(*nextDoc)
	if len(doc.Versions) == 0 {
		if doc.Until != "" {
			w.Printf("no tariff version takes effect after %s until %s\n", doc.After, doc.Until)
		} else {
			w.Printf("no tariff version is known to take effect after %s\n", doc.After)
		}
		return w.Err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "EFFECTIVE\tPROVIDER\tVERSION\tMODELS\tSOURCE")
	for _, v := range doc.Versions {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", v.Effective, v.Provider, v.Version, len(v.Models), v.Source)
	}
	tw.Flush()
	return w.Err
}

func csvNext(w io.Writer, n *Next) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"effective", "provider", "version", "models", "source"})
	for _, v := range newNextDoc(n).(*nextDoc).Versions {
		cw.Write(sheetTexts([]string{v.Effective, v.Provider, v.Version, strings.Join(v.Models, " "), v.Source}))
	}
	cw.Flush()
	return cw.Error()
}
