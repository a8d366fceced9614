package pricing

import "github.com/tokenfare/tokenfare/internal/extsort"

// A RunStore keeps the runs of one engine that spills its groups past its
// budget of buckets (Options.Runs): files the engine names ("run-000001",
// "charges-000000", "lines-000002"), writes once, whole, reads back as
// often as its results are read, and removes when it merges them or is
// closed. The engine does no I/O of its own: the store is where the files
// are. The command line's is a folder of its own under the system's
// temporary folder (internal/spillfs). The runs are those of the external
// sort (internal/extsort).
type RunStore = extsort.RunStore
