package spillfs

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/tokenfare/tokenfare/internal/platform"
)

// runsPrefix leads the name of a folder of runs, then the id of the process
// that made it and a random part: tokenfare-groups-PID-RANDOM.
const runsPrefix = "tokenfare-groups-"

// Folder is a folder of runs, made by New for one engine. Runs are files
// in it, named as the engine names them.
type Folder struct {
	dir string
}

// New makes a new folder of runs under dir (the command line gives
// os.TempDir()), named by this process's id, after removing those that
// processes no longer running left in dir (sweep).
func New(dir string) (*Folder, error) {
	sweep(dir)
	made, err := os.MkdirTemp(dir, fmt.Sprintf("%s%d-", runsPrefix, os.Getpid()))
	if err != nil {
		return nil, err
	}
	return &Folder{dir: made}, nil
}

// Create makes a new run of that name in the folder.
func (f *Folder) Create(name string) (io.WriteCloser, error) {
	return os.Create(filepath.Join(f.dir, name))
}

// Open opens the run of that name for reading: an *os.File, whose Name
// is the run's path.
func (f *Folder) Open(name string) (io.ReadCloser, error) {
	return os.Open(filepath.Join(f.dir, name))
}

// Remove removes the run of that name.
func (f *Folder) Remove(name string) error {
	return os.Remove(filepath.Join(f.dir, name))
}

// RemoveAll removes the folder and every run in it.
func (f *Folder) RemoveAll() error { return os.RemoveAll(f.dir) }

// FileLimit returns how many files this process may have open at once, 0
// when it cannot tell (platform.OpenFileLimit).
func (f *Folder) FileLimit() uint64 { return platform.OpenFileLimit() }
