package reports

import (
	"time"

	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/reports/textout"
)

// unpricedDoc is one model's calls left without a price, on one host, for
// one cause: the members of "unpriced" in reconcile's and chargeback's
// JSON.
type unpricedDoc struct {
	Model     string        `json:"model"`
	Host      string        `json:"host,omitempty"`
	Outcome   string        `json:"outcome"`
	Cause     string        `json:"cause"`
	Calls     int64         `json:"calls"`
	Recorded  string        `json:"recorded"`
	PricedOn  []pricedOnDoc `json:"priced_on,omitempty"`
	Version   string        `json:"version,omitempty"`
	Since     string        `json:"since,omitempty"`
	Secondary bool          `json:"secondary,omitempty"`
	Detail    string        `json:"detail"`
	Hint      string        `json:"hint"`
}

// pricedOnDoc is a host whose lists price a model the calls' host does not.
type pricedOnDoc struct {
	Host      string `json:"host"`
	Secondary bool   `json:"secondary,omitempty"`
}

// unpricedDocs documents the calls left without a price; nil for none.
func unpricedDocs(us []pricing.UnpricedCalls) []unpricedDoc {
	var out []unpricedDoc
	for i := range us {
		u := &us[i]
		d := unpricedDoc{Model: u.Model, Host: u.Host, Outcome: u.Outcome().String(), Cause: u.Cause.String(), Calls: u.Calls,
			Recorded: u.Recorded.String(), Version: u.Version, Secondary: u.Secondary, Detail: u.Detail(), Hint: u.Hint()}
		if !u.Since.IsZero() {
			d.Since = u.Since.UTC().Format(time.RFC3339)
		}
		for _, h := range u.PricedOn {
			d.PricedOn = append(d.PricedOn, pricedOnDoc(h))
		}
		out = append(out, d)
	}
	return out
}

// tableUnpriced lists the calls left without a price, each with why and
// what would price it.
func tableUnpriced(w *textout.Writer, us []pricing.UnpricedCalls) {
	if len(us) == 0 {
		return
	}
	w.Printf("\nunpriced calls (no official cost; what the gateway recorded is part of the gap)\n")
	for i := range us {
		u := &us[i]
		w.Printf("  %-14s %s\n  %-14s try: %s\n", u.Cause, tableCell(u.Detail()), "", tableCell(u.Hint()))
	}
}
