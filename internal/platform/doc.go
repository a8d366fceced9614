// Package platform is what tokenfare asks of the operating system beyond
// the os package, in one place, each with its Unix and other forms: the
// write lock of a gateway's config (LockForWrite: flock on Unix, a lock
// file opened without sharing on Windows), whether a process runs
// (ProcessRuns, for the sweep of spill folders left by dead processes),
// the limit of open files (OpenFileLimit, for the spill's budget of runs
// and serve's connections), and what an atomic replace needs (KeepOwner,
// SyncDir). No other package imports syscall for these.
package platform
