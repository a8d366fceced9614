package pricing

import (
	"errors"
	"testing"
)

func TestSpillRunsLifecycle(t *testing.T) {
	m := &memRuns{limit: 1024}
	e := New(testCatalog(t), Options{Runs: m.store})
	r := &e.runs
	if !r.spilling() || r.files() != 0 || r.written() != 0 || r.readable() != nil {
		t.Fatalf("before a spill: spilling %v, %d files, %d written, %v", r.spilling(), r.files(), r.written(), r.readable())
	}
	if err := r.remove(); err != nil || r.removed || m.made != 0 {
		t.Fatalf("removing no store: %v, removed %v, %d made; want nothing done", err, r.removed, m.made)
	}
	if err := r.open(e.groupRuns, e.chargeRuns); err != nil {
		t.Fatal(err)
	}
	// 1024 files: an eighth of them (extsort.MaxRuns) kept as runs.
	if m.made != 1 || r.max != 128 || r.groups == nil || r.charges == nil {
		t.Fatalf("opened: %d stores made, %d runs kept, groups %v, charges %v; want 1, 128, both", m.made, r.max, r.groups, r.charges)
	}
	if err := r.remove(); err != nil || !m.removed || r.store != nil {
		t.Fatalf("remove: %v, store removed %v, store kept %v", err, m.removed, r.store)
	}
	if err := r.readable(); !errors.Is(err, ErrSpill) {
		t.Errorf("reading removed runs: %v, want ErrSpill", err)
	}
	if !r.spilling() {
		t.Error("removing the runs stopped the spill")
	}
}

func TestSpillRunsFail(t *testing.T) {
	tests := []struct {
		name     string
		make     func() (RunStore, error)
		errs     []error
		spilling bool
	}{
		{"no store: folds", nil, nil, false},
		{"a store, no error", (&memRuns{limit: 64}).store, nil, true},
		{"the first error kept", (&memRuns{limit: 64}).store, []error{errors.New("first"), errors.New("second")}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := spillRuns{make: tc.make}
			for _, err := range tc.errs {
				r.fail(err)
			}
			if r.spilling() != tc.spilling {
				t.Errorf("spilling %v, want %v", r.spilling(), tc.spilling)
			}
			if len(tc.errs) > 0 && (!errors.Is(r.err, ErrSpill) || !errors.Is(r.err, tc.errs[0])) {
				t.Errorf("error %v, want ErrSpill and %v", r.err, tc.errs[0])
			}
		})
	}
}

func TestSpillRunsStoreFails(t *testing.T) {
	e := New(testCatalog(t), Options{Runs: func() (RunStore, error) { return nil, errors.New("no room") }})
	if err := e.runs.open(e.groupRuns, e.chargeRuns); err == nil || e.runs.store != nil {
		t.Errorf("open: %v, store %v; want the store's error and none", err, e.runs.store)
	}
}
