package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sync/atomic"
	"time"

	"github.com/spf13/pflag"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/ledger/dedup"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

// sourceOptions are the flags every command that reads calls shares.
type sourceOptions struct {
	calls   string
	strict  bool
	billing string
	since   string
	until   string
}

func (o *sourceOptions) addFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.calls, "calls", "", "file of logged calls, format detected from content (.gz read as is; - for stdin)")
	fs.BoolVar(&o.strict, "strict", false, "fail at the first rejected row (exit 2) instead of counting it")
	fs.StringVar(&o.billing, "billing-time", "", "instant that bills a call, overriding each tariff: start, first_token or end")
}

func (o *sourceOptions) addWindowFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.since, "since", "", "price calls billed at or after this instant (RFC 3339 or date)")
	fs.StringVar(&o.until, "until", "", "price calls billed before this instant (RFC 3339 or date)")
}

// engineOptions turns the source flags into pricing options.
func (o *sourceOptions) engineOptions() (pricing.Options, error) {
	var opts pricing.Options
	if o.billing != "" {
		b, err := tariffs.ParseBillingTime(o.billing)
		if err != nil {
			return opts, usageError(fmt.Errorf("--billing-time: %w", err), "")
		}
		opts.Billing = &b
	}
	var err error
	if o.since != "" {
		if opts.Since, err = parseInstant("since", o.since); err != nil {
			return opts, err
		}
	}
	if o.until != "" {
		if opts.Until, err = parseInstant("until", o.until); err != nil {
			return opts, err
		}
	}
	if !opts.Since.IsZero() && !opts.Until.IsZero() && !opts.Since.Before(opts.Until) {
		return opts, usageError(fmt.Errorf("--since %s is not before --until %s", o.since, o.until), "")
	}
	return opts, nil
}

// priceSource prices every call of the source with a new engine and
// reports rejected rows on stderr. Duplicate detection keeps within a fixed
// memory budget, spilling to a temporary file past it. each, when not nil,
// sees every call with its pricing (for per-call output).
func (a *app) priceSource(ctx context.Context, src *sourceOptions, opts pricing.Options, each func(*ledger.Call, *pricing.PricedCall)) (*pricing.Engine, error) {
	cat, err := a.Catalog()
	if err != nil {
		return nil, err
	}
	seen := dedup.New(dedup.Options{})
	defer seen.Close()
	opts.Seen = seen
	e := pricing.New(cat, opts)
	err = a.readCalls(ctx, src, e, func(c *ledger.Call) {
		pc := e.AddPriced(c)
		if each != nil {
			each(c, &pc)
		}
	})
	if err != nil {
		return nil, err
	}
	a.reportRows(e.Rows())
	return e, nil
}

// maxShownRejections is how many rejected rows are listed on stderr.
const maxShownRejections = 20

// readCalls streams every call of the source to fn and every rejected row
// to the engine's accounting, reporting rejections on stderr. Under
// --strict the first rejection ends the run as bad input.
func (a *app) readCalls(ctx context.Context, o *sourceOptions, e *pricing.Engine, fn func(*ledger.Call)) error {
	if o.calls == "" {
		return usageError(errors.New("no calls to read"), "give --calls FILE (a LiteLLM spend log export, CLIProxyAPI usage, or canonical CSV/JSONL)")
	}
	src := a.source(o.calls)
	r, err := src.Open(ctx)
	if err != nil {
		return readError(err)
	}
	defer r.Close()
	var rows atomic.Int64
	stop := a.progress(&rows)
	defer stop()
	shown := 0
	var b ledger.Batch
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		err := r.Next(ctx, &b)
		if errors.Is(err, io.EOF) {
			if err := e.Err(); err != nil {
				return fmt.Errorf("tell duplicates apart: %w", err)
			}
			return nil
		}
		if err != nil {
			return readError(err)
		}
		for _, rej := range b.Rejected {
			if o.strict {
				return usageError(fmt.Errorf("read calls: %v", rej), "fix the row, or drop --strict to count rejected rows and go on")
			}
			e.Reject()
			if shown < maxShownRejections {
				fmt.Fprintf(a.stderr, "rejected: %v\n", rej)
			}
			shown++
		}
		for i := range b.Calls {
			fn(&b.Calls[i])
		}
		rows.Add(int64(b.Rows))
	}
}

// source is the ledger source of a --calls argument; "-" is stdin.
func (a *app) source(path string) ledger.Source {
	if path == "-" {
		return ledger.StreamSource("stdin", a.stdin, ledger.Options{})
	}
	return ledger.FileSource(path, ledger.Options{})
}

// readError tells what kind of failure reading calls met: an I/O failure
// is reported as such, bad content or a bad path as bad input.
func readError(err error) error {
	var ie *ledger.InputError
	switch {
	case errors.Is(err, ledger.ErrRead), !errors.As(err, &ie):
		return fmt.Errorf("read calls: %w", err)
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, ledger.ErrNotAFile), errors.Is(err, fs.ErrPermission):
		return usageError(fmt.Errorf("read calls %w", err), "check the path given to --calls")
	}
	return usageError(fmt.Errorf("read calls %w", err), "see docs/calls.md for the formats tokenfare reads")
}

// progress prints the rows read so far on stderr once a second, when stderr
// is a terminal. The returned function stops it.
func (a *app) progress(rows *atomic.Int64) func() {
	if !isTerminal(a.stderr) {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-done:
				fmt.Fprint(a.stderr, "\r\033[K")
				return
			case <-t.C:
				fmt.Fprintf(a.stderr, "\rread %d rows", rows.Load())
			}
		}
	}()
	return func() { close(done) }
}

// reportRows notes on stderr how many rows were rejected, and how many of
// those were not listed.
func (a *app) reportRows(rows pricing.Rows) {
	if rows.Rejected > maxShownRejections {
		fmt.Fprintf(a.stderr, "rejected: %d more row(s) not listed\n", rows.Rejected-maxShownRejections)
	}
	if rows.Rejected > 0 {
		fmt.Fprintf(a.stderr, "%d of %d row(s) rejected; they are counted in rows.rejected\n", rows.Rejected, rows.Read)
	}
}
