// Package spillfs keeps on disk the runs of a pricing engine that spills
// its groups past its budget of buckets: it is the pricing.RunStore of the
// command line, and holds everything of the spill that touches the
// operating system, so that package pricing does no I/O. The command
// layer wires it (pricing.Options.Runs); pricing's tests use a store in
// memory.
//
// New makes a Folder for one engine, at its first spill: a folder of its
// own under the system's temporary folder, named tokenfare-groups-PID-
// RANDOM by the process that made it. The runs are files in it, which
// the engine creates, reads back, and removes as it merges them;
// RemoveAll (the engine's Close) removes the folder whole. FileLimit is
// the process's soft limit of open files (getrlimit RLIMIT_NOFILE), from
// which the engine bounds the runs it reads at once.
//
// A process killed before it could remove its folder (SIGKILL, the
// kernel's out-of-memory killer) leaves it behind; New first removes the
// folders in its folder whose process no longer runs (signal 0 to the
// process id), so that a crash costs disk space only until the next
// spill.
//
// # Invariants
//
//   - A folder is removed only by the engine that made it, or once no
//     process of its id runs: a folder whose id is in use, by its process
//     or another that took the id, is left alone, and so is every name not
//     of the form above.
//   - A folder is named by its process: the id of the process that made it
//     leads its random part.
//
// # Platforms
//
// On Unix (Linux, macOS, the BSDs) a process is probed with kill(pid, 0),
// EPERM counting as running, and the limit read with getrlimit. On other
// systems (Windows) tokenfare cannot tell: every process counts as
// running, so nothing is swept, and the limit is unknown (0), so the
// engine keeps its default of 256 runs.
package spillfs
