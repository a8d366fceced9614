package cli

import (
	"bufio"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/tokenfare/tokenfare/internal/atomicfile"
	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/reports"
)

type priceOptions struct {
	source sourceOptions
	output string
	out    string // --out: the file to write, replaced only by a complete run
}

func newPriceCmd(a *app) *cobra.Command {
	var opts priceOptions
	cmd := &cobra.Command{
		Use:   "price --calls FILE",
		Short: "Price every logged call at the tariff in force at its billing instant",
		Long: `Price writes one line per call read: the billing instant, the tariff model, what became
of the call (priced, unpriced, retired, failed, duplicate, outside), the tariff version and
period, the tokens of each usage type, the official cost, the spend the gateway recorded, and
the host the call was priced among (empty: the first-party lists; a call of a host no tariff
prices is unpriced with that host named). Rejected rows are listed on stderr and counted in the totals printed there. CSV and the
table add the call's currency; the table rounds money to 6 decimals.

A run that fails part way (a connection lost, an input that cannot be read, Ctrl-C) leaves no
lines behind where it can take them back: --out FILE is written to a temporary file renamed
into place only when the run is complete, and a redirected stdout (> file) is cut back to
where the run began. Lines already sent down a pipe cannot be recalled: a complete run exits 0
and ends stderr with its "rows:" line; a cut one exits 2 (130 when interrupted), with no
"rows:" line. A line that cannot be written ends the run at once: nothing more is read or
priced. When the reader of the pipe has gone (| head -1) that is a normal end: exit 0,
nothing said, no "rows:" line; any other write failure (a full disk) is reported, exit 2.`,
		Example: `  tokenfare price --calls testdata/sample/spendlogs-2026-10.csv -o csv > priced.csv
  tokenfare price --calls usage.jsonl --since 2026-09-01 --until 2026-10-01 -o json
  zcat spendlogs.csv.gz | tokenfare price --calls - --billing-time start
  tokenfare price --calls spendlogs.csv --since 2026-10-12 --until 2026-10-13 -o table
  tokenfare price --db "$DATABASE_URL" --month 2026-10 --out priced-2026-10.csv`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runPrice(cmd, a, &opts)
		},
	}
	opts.source.addFlags(cmd.Flags())
	opts.source.addWindowFlags(cmd.Flags())
	cmd.Flags().StringVarP(&opts.output, "output", "o", "csv", "output format: csv, json (one object per line) or table")
	cmd.Flags().StringVar(&opts.out, "out", "", "write the lines to this file instead of stdout, replacing it only once the run is complete")
	completeSource(cmd)
	completeOutput(cmd, reports.CSV, reports.JSON, reports.Table)
	return cmd
}

func runPrice(cmd *cobra.Command, a *app, opts *priceOptions) error {
	format, err := parseOutput(opts.output, reports.Table, reports.CSV, reports.JSON)
	if err != nil {
		return err
	}
	eopts, err := opts.source.engineOptions()
	if err != nil {
		return err
	}
	sink, err := openSink(a.stdout, cmd.OutOrStdout(), opts.out)
	if err != nil {
		return err
	}
	complete, err := runPriceInto(cmd, a, opts, format, eopts, sink)
	if !complete {
		sink.discard()
		return err
	}
	if cerr := sink.commit(); cerr != nil {
		return cerr
	}
	return err // nothing priced, or nil
}

// runPriceInto prices the calls into sink and reports whether every line
// was written: a run that prices nothing is complete, and fails.
func runPriceInto(cmd *cobra.Command, a *app, opts *priceOptions, format reports.Format, eopts pricing.Options, sink *priceSink) (bool, error) {
	out := bufio.NewWriterSize(sink.w, 1<<16)
	cw, err := reports.NewCallWriter(out, format)
	if err != nil {
		return false, usageError(err, "")
	}
	written := 0
	// A line that cannot be written (a closed pipe, a full disk) ends the
	// run at once: nothing more is read.
	e, err := a.priceSource(cmd.Context(), &opts.source, eopts, pricing.ObserverFunc(func(c *ledger.Call, pc *pricing.PricedCall) error {
		if pc.Outcome == pricing.Outside {
			return nil
		}
		written++
		return cw.Write(c, pc)
	}))
	if e == nil || (err != nil && written == 0) { // failed, interrupted, or no call at all: what is buffered is not written
		return false, err
	}
	if ferr := cw.Flush(); ferr != nil {
		return false, ferr
	}
	if ferr := out.Flush(); ferr != nil {
		return false, ferr
	}
	rows := e.Rows()
	fmt.Fprintf(a.stderr, "rows: %s\n", reports.RowCounts(rows))
	return true, err // nothing priced, or nil
}

// priceSink is where price writes its lines: --out's temporary file,
// renamed into place by commit, or stdout, which discard cuts back to
// where the run began when it is a regular file (a redirect).
type priceSink struct {
	w      io.Writer
	file   *atomicfile.File // --out
	rewind *os.File         // stdout, when a regular file
	offset int64            // where the run's lines begin in it
}

// openSink opens the sink of --out path, or of stdout (w, the file under
// it being stdout) when path is empty.
func openSink(stdout, w io.Writer, path string) (*priceSink, error) {
	if path != "" {
		f, err := createAtomic(path)
		if err != nil {
			return nil, err
		}
		return &priceSink{w: f, file: f}, nil
	}
	s := &priceSink{w: w}
	if f, ok := stdout.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			// A file opened to append (>>) writes at its end whatever the
			// offset says: never cut below what it held before the run.
			if off, err := f.Seek(0, io.SeekCurrent); err == nil {
				s.rewind, s.offset = f, max(off, st.Size())
			}
		}
	}
	return s, nil
}

// commit publishes a complete run's lines.
func (s *priceSink) commit() error {
	if s.file == nil {
		return nil
	}
	return s.file.Commit()
}

// discard takes back what an incomplete run wrote, where it can.
func (s *priceSink) discard() {
	switch {
	case s.file != nil:
		s.file.Discard()
	case s.rewind != nil:
		if s.rewind.Truncate(s.offset) == nil {
			_, _ = s.rewind.Seek(s.offset, io.SeekStart) // where it can: the run's error is the one reported
		}
	}
}
