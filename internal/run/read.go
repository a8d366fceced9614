package run

import (
	"context"
	"errors"
	"io"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
)

// reader reads the calls of sources one after the other into one engine.
type reader struct {
	in     *Input
	e      *pricing.Engine
	listed int64        // rejections passed to in.OnRejected so far
	before pricing.Rows // the engine's rows before the source read last
}

// read streams the calls of src to fn, a batch at a time, and every
// rejected row to the engine's accounting, listing the first MaxListed;
// it returns the source's format. It stops at fn's first error and
// returns it as it is, reading no further batch. Under Input.Strict the
// first rejection ends the run.
func (r *reader) read(ctx context.Context, src ledger.Source, fn func([]ledger.Call) error) (string, error) {
	in, err := src.Open(ctx)
	if err != nil {
		return "", &ReadError{Source: src.Name(), Err: err}
	}
	defer in.Close()
	p := &Progress{}
	p.meter, _ = in.(ledger.Meter)
	if r.in.Progress != nil {
		defer r.in.Progress(src.Name(), p)()
	}
	gc := startGCPacer()
	defer gc.stop()
	var b ledger.Batch
	for {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		err := in.Next(ctx, &b)
		if errors.Is(err, io.EOF) {
			return in.Format(), nil
		}
		if err != nil {
			return "", &ReadError{Source: src.Name(), Err: err}
		}
		if err := r.rejected(b.Rejected); err != nil {
			return "", err
		}
		if err := fn(b.Calls); err != nil {
			return "", err
		}
		p.rows.Add(int64(b.Rows))
		gc.batch()
	}
}

// rejected counts a batch's rejected rows and lists the first ones.
func (r *reader) rejected(rejs []ledger.Rejection) error {
	for _, rej := range rejs {
		if r.in.Strict {
			return &RejectedError{Rejection: rej}
		}
		r.e.Reject()
		if r.listed < MaxListed && r.in.OnRejected != nil {
			r.in.OnRejected(rej)
			r.listed++
		}
	}
	return nil
}
