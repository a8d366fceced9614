package ledger

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync/atomic"
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
	f, err := openInput(s.path)
	if err != nil {
		return nil, err
	}
	size := int64(-1) // unknown
	if st, err := f.Stat(); err == nil {
		if st.IsDir() {
			_ = f.Close() // read only: closing it loses nothing
			return nil, &InputError{File: s.path, Err: fmt.Errorf("%w: it is a directory", ErrNotAFile)}
		}
		if st.Mode().IsRegular() {
			size = st.Size()
		}
	}
	cf := &countingReader{r: f}
	r, err := open(ctx, s.path, cf, s.opt)
	if err != nil {
		_ = f.Close() // read only: closing it loses nothing
		return nil, err
	}
	return &closingReader{meteredReader: meteredReader{Reader: r, n: cf, size: size}, c: f}, nil
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
	cr := &countingReader{r: &pipeReader{ctx: ctx, r: s.r, done: make(chan pipeRead, 1)}}
	r, err := open(ctx, s.name, cr, s.opt)
	if err != nil {
		return nil, err
	}
	return &meteredReader{Reader: r, n: cr, size: -1}, nil
}

// Meter is implemented by the Readers of file and stream sources: they
// tell how much of their input has been read, for progress.
type Meter interface {
	// Consumed returns the bytes read from the input so far and the
	// input's size, or -1 where it is not known (a stream). Gzip input
	// counts its compressed bytes, against the compressed file's size.
	// Reading runs ahead of the calls handed out by up to a few buffers.
	// It is safe to call while another goroutine reads.
	Consumed() (read, size int64)
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// meteredReader is a Reader with a Meter on its input.
type meteredReader struct {
	Reader
	n    *countingReader
	size int64
}

func (r *meteredReader) Consumed() (read, size int64) { return r.n.n.Load(), r.size }

// closingReader closes the input file with the Reader.
type closingReader struct {
	meteredReader
	c io.Closer
}

func (r *closingReader) Close() error {
	err := r.meteredReader.Close()
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

// openInput opens a file of calls; an error is an *InputError naming it
// (its Err without the path, which the File field holds).
func openInput(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, &InputError{File: path, Err: err}
	}
	return f, nil
}
