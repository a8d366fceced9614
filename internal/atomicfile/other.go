//go:build !unix

package atomicfile

import (
	"io/fs"
	"os"
)

// keepOwner does nothing where files have no Unix owner.
func keepOwner(*os.File, fs.FileInfo) error { return nil }

// syncDir does nothing: Windows cannot open a folder to flush it
// (FlushFileBuffers takes a file), so a rename is as durable as the file
// system makes it.
func syncDir(string) error { return nil }
