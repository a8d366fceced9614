package cli

import (
	"encoding/csv"
	"strings"
	"testing"
)

// TestCSVEndsWithCurrency checks the CSV contract the README states: every
// row of every command's CSV ends with its currency column (the header
// names it, each row carries a currency code there), so columns a change
// adds go before it.
func TestCSVEndsWithCurrency(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"price", []string{"price", "--calls", sample, "--since", "2026-10-06T09:00:00Z", "--until", "2026-10-06T10:00:00Z", "-o", "csv"}},
		{"reconcile", []string{"reconcile", "--calls", sample, "--by", "model,host", "-o", "csv"}},
		{"chargeback", []string{"chargeback", "--calls", sample, "--month", "2026-10", "--by", "team", "-o", "csv"}},
		{"blend", []string{"blend", "--calls", sample, "--as-of", "2026-10-29", "-o", "csv"}},
		{"tariffs list", []string{"tariffs", "list", "-o", "csv"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runCLI(t, "", tc.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
			if err != nil || len(rows) < 2 {
				t.Fatalf("%d rows, %v:\n%s", len(rows), err, out)
			}
			if last := rows[0][len(rows[0])-1]; last != "currency" {
				t.Errorf("header ends with %q, want currency: %v", last, rows[0])
			}
			for i, row := range rows[1:] {
				if last := row[len(row)-1]; len(last) != 3 || strings.ToUpper(last) != last {
					t.Errorf("row %d ends with %q, not a currency code: %v", i+2, last, row)
					break
				}
			}
		})
	}
}
