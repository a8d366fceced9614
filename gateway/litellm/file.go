package litellm

import (
	"bytes"
	"context"
	"errors"
	"os"

	"github.com/tokenfare/tokenfare/internal/atomicfile"
	"github.com/tokenfare/tokenfare/internal/platform"
	"github.com/tokenfare/tokenfare/internal/yamlin"
)

// ErrChanged is returned when the config changed on disk after it was read.
var ErrChanged = errors.New("the file changed on disk after it was read; nothing written: run again")

// beforeRename, when set (by tests), runs after the new file is complete
// and synced and before it replaces the old one.
var beforeRename func()

// ReadFile reads a config for an update, returning its bytes with it so
// that WriteFile can tell whether the file changed meanwhile.
func ReadFile(ctx context.Context, path string) (*Config, []byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	data, err := yamlin.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	c, err := Parse(path, data)
	return c, data, err
}

// WriteFile replaces the file at path with data, atomically
// (atomicfile): the new bytes go to a temporary file in the same folder,
// which is synced, given the old file's mode and owner, and renamed over
// it; the folder is then synced. It refuses (ErrChanged) when the file no
// longer holds old, the bytes it was read with; the compare and the rename
// hold a write lock (platform.LockForWrite), so that of writers racing from the
// same bytes one succeeds and the others are refused. A process killed at
// any point leaves either the old file or the new one, whole; a killed
// write may leave the temporary file (".<name>.tokenfare-*.tmp") behind.
// A symbolic link is followed: the file it names is replaced and the link
// stays.
func WriteFile(path string, old, data []byte) error {
	if _, err := os.Stat(path); err != nil {
		return err
	}
	f, err := atomicfile.Create(path)
	if err != nil {
		return err
	}
	defer f.Discard()
	if _, err := f.Write(data); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if beforeRename != nil {
		beforeRename()
	}
	// The compare and the rename hold the file's write lock: two writers
	// that read the same bytes cannot both find them unchanged.
	unlock, err := platform.LockForWrite(f.Path())
	if err != nil {
		return err
	}
	defer unlock()
	now, err := os.ReadFile(f.Path())
	if err != nil {
		return err
	}
	if !bytes.Equal(now, old) {
		return ErrChanged
	}
	return f.Commit()
}
