package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/tokenfare/tokenfare/internal/run"
	"github.com/tokenfare/tokenfare/internal/state"
	"github.com/tokenfare/tokenfare/ledger"
)

// A state refreshed under --strict stops at the first rejected row, as a
// run does, and commits nothing: a database's reader ends there (the
// refresh is dropped whole), and the files of --calls are read through
// before the refresh (the state reads them past their marks itself, where
// no reader of the command's can stop it), so that a bad row in them
// stops the command before the state is touched.

// strictSource is a source whose reader ends at its first rejected row
// with a *run.RejectedError.
type strictSource struct{ ledger.Source }

func (s strictSource) Open(ctx context.Context) (ledger.Reader, error) {
	r, err := s.Source.Open(ctx)
	if err != nil {
		return nil, err
	}
	return strictReader{r}, nil
}

type strictReader struct{ ledger.Reader }

func (r strictReader) Next(ctx context.Context, b *ledger.Batch) error {
	if err := r.Reader.Next(ctx, b); err != nil {
		return err
	}
	if len(b.Rejected) > 0 {
		return &run.RejectedError{Rejection: b.Rejected[0]}
	}
	return nil
}

// strictSources wraps each of sources in a strictSource.
func strictSources(sources []ledger.Source) []ledger.Source {
	out := make([]ledger.Source, len(sources))
	for i, s := range sources {
		out[i] = strictSource{s}
	}
	return out
}

// checkRows reads every file of the --calls arguments and returns the
// first rejected row as a *run.RejectedError, nil when none is. Files
// named by a folder or a glob that are gone since listed are passed
// over, as the refresh passes them over.
func checkRows(ctx context.Context, args []string) error {
	for _, arg := range args {
		paths, err := callFiles(arg)
		if err != nil {
			return err
		}
		for _, p := range paths {
			if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
				continue
			}
			if err := firstRejected(ctx, ledger.FileSource(p, ledger.Options{})); err != nil {
				return err
			}
		}
	}
	return nil
}

// firstRejected reads src through and returns its first rejected row as
// a *run.RejectedError, or the error that stopped reading it.
func firstRejected(ctx context.Context, src ledger.Source) error {
	r, err := strictSource{src}.Open(ctx)
	if err != nil {
		return &run.ReadError{Source: src.Name(), Err: err}
	}
	defer r.Close()
	var b ledger.Batch
	for {
		err := r.Next(ctx, &b)
		var rej *run.RejectedError
		switch {
		case errors.Is(err, io.EOF):
			return nil
		case errors.As(err, &rej):
			return err
		case err != nil:
			return &run.ReadError{Source: src.Name(), Err: err}
		}
	}
}

// rejectedSince is the error of a refresh under --strict that counted
// rejected rows all the same (a file that grew between its check and
// the refresh): the sources' rows rejected since before, nil for none.
func rejectedSince(before, after []state.Source) error {
	for _, s := range after {
		n := s.Rows.Rejected
		for _, b := range before {
			if b.Name == s.Name {
				n -= b.Rows.Rejected
			}
		}
		if n > 0 {
			return usageError(fmt.Errorf("read calls: %s: %d row(s) rejected by the refresh, and counted in the state", s.Name, n),
				"fix the rows (the file grew while it was checked); the state holds the refresh's other rows")
		}
	}
	return nil
}
