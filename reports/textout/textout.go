// Package textout writes text output that keeps its first write error, so
// that a report of many lines reads straight and reports the error once.
package textout

import (
	"fmt"
	"io"
)

// Writer passes writes on to W until one fails; from then on it writes
// nothing and Err holds that first error.
type Writer struct {
	W   io.Writer
	Err error
}

func (e *Writer) Write(p []byte) (int, error) {
	if e.Err != nil {
		return 0, e.Err
	}
	n, err := e.W.Write(p)
	e.Err = err
	return n, err
}

// Printf formats to W unless a write has failed.
func (e *Writer) Printf(format string, args ...any) {
	if e.Err == nil {
		_, e.Err = fmt.Fprintf(e.W, format, args...)
	}
}
