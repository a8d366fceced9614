package provider

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// FuzzRead feeds any bytes to Read: it never panics, and every row it
// returns keeps the invariants — a bucket within one UTC day, no negative
// count, split billing that adds up to the row's amount.
func FuzzRead(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(fixtures, "*.*"))
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		x, err := Read(context.Background(), "fuzz", bytes.NewReader(data))
		if err != nil {
			return
		}
		for _, r := range x.Rows {
			if !r.End.After(r.Start) || r.End.After(r.Start.Truncate(24*time.Hour).Add(24*time.Hour)) {
				t.Fatalf("%s: bucket %s to %s is not within one UTC day", r.Where, r.Start, r.End)
			}
			for _, n := range r.Qty {
				if n < 0 {
					t.Fatalf("%s: negative count %v", r.Where, r.Qty)
				}
			}
			if r.Split {
				sum := decimal.Zero
				for _, d := range r.ByUsage {
					sum = sum.Add(d)
				}
				if !sum.Equal(r.Billed) {
					t.Fatalf("%s: billed %s, parts add up to %s", r.Where, r.Billed, sum)
				}
			}
		}
	})
}
