//go:build !unix

package platform

import (
	"io/fs"
	"os"
)

// ProcessRuns reports whether a process of that id runs: on this system
// tokenfare cannot tell, and says it does, so that no folder of runs is
// swept.
func ProcessRuns(int) bool { return true }

// OpenFileLimit returns how many files this process may have open: on
// this system tokenfare cannot tell, and says 0.
func OpenFileLimit() uint64 { return 0 }

// KeepOwner does nothing where files have no Unix owner.
func KeepOwner(*os.File, fs.FileInfo) error { return nil }

// SyncDir does nothing: Windows cannot open a folder to flush it
// (FlushFileBuffers takes a file), so a rename is as durable as the file
// system makes it.
func SyncDir(string) error { return nil }
