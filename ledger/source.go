package ledger

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Source is where logged calls come from: a file, stdin, a database.
type Source interface {
	// Name is how errors and the row accounting name the source: a file's
	// path, "stdin".
	Name() string
	// Open starts reading. Reading honours ctx: once ctx is done, the
	// Reader's Next returns ctx's error. Close the Reader when done.
	Open(ctx context.Context) (Reader, error)
}

// FileSource is the file at path. Its format is detected from its content
// when opened (gzip is read as is). A path that is a directory is refused
// with ErrNotAFile; one that does not exist with an error that
// errors.Is(err, fs.ErrNotExist).
func FileSource(path string, opt Options) Source { return &fileSource{path: path, opt: opt} }

type fileSource struct {
	path string
	opt  Options
}

func (s *fileSource) Name() string { return s.path }

func (s *fileSource) Open(ctx context.Context) (Reader, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, err := os.Open(s.path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the path is the File field
		}
		return nil, &InputError{File: s.path, Err: err}
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		return nil, &InputError{File: s.path, Err: fmt.Errorf("%w: it is a directory", ErrNotAFile)}
	}
	r, err := open(ctx, s.path, f, s.opt)
	if err != nil {
		f.Close()
		return nil, err
	}
	return &closingReader{Reader: r, c: f}, nil
}

// StreamSource is an input already open, such as stdin, named name. It
// can be opened once; its Reader does not close r.
func StreamSource(name string, r io.Reader, opt Options) Source {
	return &streamSource{name: name, r: r, opt: opt}
}

type streamSource struct {
	name string
	r    io.Reader
	opt  Options
}

func (s *streamSource) Name() string { return s.name }

func (s *streamSource) Open(ctx context.Context) (Reader, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return open(ctx, s.name, &pipeReader{ctx: ctx, r: s.r, done: make(chan pipeRead, 1)}, s.opt)
}

// closingReader closes the input file with the Reader.
type closingReader struct {
	Reader
	c io.Closer
}

func (r *closingReader) Close() error {
	err := r.Reader.Close()
	if cerr := r.c.Close(); err == nil {
		err = cerr
	}
	return err
}

// inputReader stops reading once ctx is done and marks the input's read
// errors with ErrRead, so callers tell an I/O failure from bad content.
type inputReader struct {
	ctx context.Context
	r   io.Reader
}

func (r *inputReader) Read(p []byte) (int, error) {
	if err := r.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := r.r.Read(p)
	if err != nil && err != io.EOF {
		err = fmt.Errorf("%w: %w", ErrRead, err)
	}
	return n, err
}

// pipeReader reads a stream that may block for good (a quiet pipe, a
// terminal) in its own goroutine, so that a read returns once ctx is done.
// After that it never reads again; the read in flight ends with the stream.
type pipeReader struct {
	ctx  context.Context
	r    io.Reader
	buf  []byte
	done chan pipeRead
}

type pipeRead struct {
	n   int
	err error
}

func (r *pipeReader) Read(p []byte) (int, error) {
	if err := r.ctx.Err(); err != nil {
		return 0, err
	}
	if cap(r.buf) < len(p) {
		r.buf = make([]byte, len(p))
	}
	buf := r.buf[:len(p)]
	go func() {
		n, err := r.r.Read(buf)
		r.done <- pipeRead{n, err}
	}()
	select {
	case res := <-r.done:
		return copy(p, buf[:res.n]), res.err
	case <-r.ctx.Done():
		r.buf = nil // the read in flight still owns it
		return 0, r.ctx.Err()
	}
}
