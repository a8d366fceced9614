// Package atomicfile replaces a file whole: every file tokenfare writes (a
// gateway config written back, the workbook, the FOCUS export, price's
// --out) is written through it, so that whoever reads the file, during the
// write or after a failure, finds either the old file or the new one, whole.
//
// Create opens a temporary file in the target's folder; the caller writes
// it; Commit syncs it to disk, closes it, gives it the target's mode (and,
// on Unix, its owner), renames it over the target and syncs the folder.
// Discard, or any failure, removes the temporary file and leaves the
// target as it was. Close syncs and closes the temporary file without
// replacing anything yet, so that several files can be made complete
// before any of them replaces its target.
//
// # Invariants
//
//   - The target is replaced only by a rename, and only by Commit: a failed
//     or abandoned write leaves it untouched and no temporary file behind
//     (a process killed mid-write may leave one, named
//     ".<name>.tokenfare-<random>.tmp" beside the target).
//   - The new file's bytes are on disk before the rename (fsync), and the
//     rename itself is on disk when Commit returns (fsync of the folder, on
//     Unix; Windows cannot sync a folder, see below). A folder that fails
//     to sync after the rename is ErrUnsynced: the target is replaced.
//   - An existing target keeps its permission bits, and on Unix its owner
//     when the process may set it (root; an owner that cannot be kept is
//     an error only for root, as for cp -p). A new file gets 0644 minus the
//     umask: readable by all, writable by its owner only, as a shell
//     redirect with the usual umask makes it; a umask of 077 keeps it
//     private. Configs and cost data are written by one owner, so a group-
//     or world-writable umask does not make them writable by others.
//   - A symbolic link is followed: the file it names is replaced and the
//     link stays.
//   - Errors name the target, never the temporary file.
//
// # Platforms
//
// On Linux and macOS, rename(2) replaces the target atomically: a reader
// that opens the path sees the old file or the new one. Go's (*os.File).Sync
// is fsync(2) on Linux and fcntl(F_FULLFSYNC) on macOS (falling back to
// fsync where a file system lacks it). On Windows os.Rename is
// MoveFileEx(MOVEFILE_REPLACE_EXISTING), which replaces an existing file
// (Go 1.26: internal/syscall/windows.Rename); it fails while another
// program holds the target open without sharing deletion (a workbook open
// in a spreadsheet), and then the target is left as it was. Windows has no
// way to sync a folder, so the rename is as durable as the file system
// makes it; the file's own bytes are flushed (FlushFileBuffers) first.
package atomicfile
