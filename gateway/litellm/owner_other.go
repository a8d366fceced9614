//go:build !unix

package litellm

import "os"

// keepOwner does nothing where files have no Unix owner.
func keepOwner(*os.File, os.FileInfo, string) error { return nil }
