package platform_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// maySyscall are the folders (from the module's root) whose code may
// import syscall besides this one, each with why: none asks the system
// for a lock, a process, a limit or a file's owner.
var maySyscall = map[string]string{
	"internal/cli":    "the signals a command stops or reloads on (SIGTERM, SIGPIPE, SIGHUP) and EPIPE",
	"ledger/postgres": "the errors that say a connection was lost (ECONNRESET and the like), to retry",
}

// TestSyscallOnlyHere reads the imports of every Go file of the module
// but tests and fails for each syscall import outside this package and
// the folders of maySyscall.
func TestSyscallOnlyHere(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			if err == nil && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && path != root) {
				return filepath.SkipDir
			}
			return err
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		dir := filepath.ToSlash(filepath.Dir(rel))
		for _, im := range f.Imports {
			if p, _ := strconv.Unquote(im.Path.Value); p != "syscall" {
				continue
			}
			found++
			if _, ok := maySyscall[dir]; !ok && dir != "internal/platform" {
				t.Errorf("%s imports syscall: ask the system through internal/platform (or name the folder in maySyscall, with why)", rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found == 0 {
		t.Fatal("no syscall import found at all: the test reads no code")
	}
}
