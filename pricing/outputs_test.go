package pricing

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestOutputsDecideWhatSpillKeeps spills the same calls with each set of
// outputs and checks what the runs keep (runs of charges; blend parts in
// the groups' records) and which outputs an engine then gives: those it
// was told of, every one by default, and ErrSpill naming the output for
// any other.
func TestOutputsDecideWhatSpillKeeps(t *testing.T) {
	cat := testCatalog(t)
	calls := chargeCalls(32, 500)
	from, until := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name                 string
		outputs              Outputs
		charges, chargeback  bool // the outputs given
		chargeRuns, blendCat bool // what the runs keep
	}{
		{name: "every one by default", charges: true, chargeback: true, chargeRuns: true, blendCat: true},
		{name: "groups alone", outputs: OutputGroups},
		{name: "chargeback", outputs: OutputChargeback, chargeback: true, blendCat: true},
		{name: "charges", outputs: OutputCharges, charges: true, chargeRuns: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			runs := &memRuns{}
			e := New(cat, Options{Dims: MonthDims, Runs: runs.store, MaxGroups: 40, Outputs: tc.outputs})
			defer e.Close()
			for i := range calls {
				e.AddPriced(&calls[i])
			}
			if e.runs.written() == 0 {
				t.Fatal("nothing spilled: the test checks too little")
			}
			if got := e.runs.charges.Len() > 0; got != tc.chargeRuns {
				t.Errorf("runs of charges: %v, want %v", got, tc.chargeRuns)
			}
			if got := e.blendCatalog() != nil; got != tc.blendCat {
				t.Errorf("blend parts kept: %v, want %v", got, tc.blendCat)
			}
			checkOutput(t, "Charges", chargesErr(e), tc.charges)
			cb, err := e.Chargeback(from, until, nil)
			checkOutput(t, "Chargeback", err, tc.chargeback)
			if cb != nil {
				cb.Close()
			}
			r := e.Reconcile()
			defer r.Close()
			if _, err := Collect(r.Groups()); err != nil {
				t.Errorf("Reconcile: %v", err)
			}
		})
	}
}

// checkOutput checks the error of output name: none when given, else
// ErrSpill naming it.
func checkOutput(t *testing.T, name string, err error, given bool) {
	t.Helper()
	switch {
	case given && err != nil:
		t.Errorf("%s: %v, want no error", name, err)
	case !given && (!errors.Is(err, ErrSpill) || !strings.HasPrefix(strings.TrimPrefix(err.Error(), ErrSpill.Error()+": "), name+" asked")):
		t.Errorf("%s: %v, want ErrSpill naming it", name, err)
	}
}
