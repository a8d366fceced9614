//go:build !unix

package spillfs

// processRuns reports whether a process of that id runs: on this system
// tokenfare cannot tell, and says it does, so that no folder of runs is
// swept.
func processRuns(int) bool { return true }

// openFileLimit returns how many files this process may have open: on
// this system tokenfare cannot tell, and says 0.
func openFileLimit() uint64 { return 0 }
