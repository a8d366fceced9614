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
	"github.com/tokenfare/tokenfare/ledger/postgres"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

// sourceOptions are the flags every command that reads calls shares.
type sourceOptions struct {
	calls   string
	dbs     []string
	rows    bool
	strict  bool
	billing string
	since   string
	until   string
}

func (o *sourceOptions) addFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.calls, "calls", "", "file of logged calls, format detected from content (.gz read as is; - for stdin)")
	fs.StringArrayVar(&o.dbs, "db", nil, "LiteLLM's PostgreSQL URL, read-only (repeatable: databases are merged; default $DATABASE_URL)")
	fs.BoolVar(&o.rows, "rows", false, "read database rows one by one instead of summing in the database (finds calls logged in two databases)")
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
	a.defaultDB(src)
	if len(src.dbs) > 0 && src.calls == "" && each == nil && !src.rows {
		e, err := a.pushDown(ctx, src, cat, opts)
		if !errors.Is(err, pricing.ErrNotExact) {
			return e, err
		}
		fmt.Fprintf(a.stderr, "note: summing in the database is not exact here (%v); reading rows instead\n", err)
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
	a.defaultDB(o)
	if o.calls == "" && len(o.dbs) == 0 {
		return usageError(errors.New("no calls to read"), "give --calls FILE (a LiteLLM spend log export, CLIProxyAPI usage, or canonical CSV/JSONL) or --db URL (LiteLLM's PostgreSQL)")
	}
	var sources []ledger.Source
	if o.calls != "" {
		sources = append(sources, a.source(o.calls))
	}
	for _, url := range o.dbs {
		src, err := openDB(url, e.Options())
		if err != nil {
			return err
		}
		sources = append(sources, src)
	}
	for _, src := range sources {
		r, err := src.Open(ctx)
		if err != nil {
			return sourceError(err)
		}
		err = a.drain(ctx, o, e, r, fn)
		r.Close()
		if err != nil {
			return err
		}
	}
	if err := e.Err(); err != nil {
		return fmt.Errorf("tell duplicates apart: %w", err)
	}
	return nil
}

// drain reads r until io.EOF: rejected rows to the engine's accounting and
// stderr, calls to fn.
func (a *app) drain(ctx context.Context, o *sourceOptions, e *pricing.Engine, r ledger.Reader, fn func(*ledger.Call)) error {
	var rows atomic.Int64
	stop := a.progress(&rows)
	defer stop()
	var b ledger.Batch
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		err := r.Next(ctx, &b)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return sourceError(err)
		}
		for _, rej := range b.Rejected {
			if o.strict {
				return usageError(fmt.Errorf("read calls: %v", rej), "fix the row, or drop --strict to count rejected rows and go on")
			}
			e.Reject()
			if a.shownRejections < maxShownRejections {
				fmt.Fprintf(a.stderr, "rejected: %v\n", rej)
			}
			a.shownRejections++
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

// sourceError sorts a failure to read calls: a database's by its kind,
// a file's with readError.
func sourceError(err error) error {
	var pe *postgres.Error
	if errors.As(err, &pe) || errors.Is(err, postgres.ErrBadURL) {
		return dbError(err)
	}
	return readError(err)
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
