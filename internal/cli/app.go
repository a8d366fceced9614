package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/tokenfare/tokenfare/internal/buildinfo"
	"github.com/tokenfare/tokenfare/internal/secret"
	"github.com/tokenfare/tokenfare/reports/textout"
	"github.com/tokenfare/tokenfare/tariffs"
)

// Exit codes, the command line's stable contract.
const (
	exitOK          = 0   // fine
	exitFindings    = 1   // findings: check failed, stale config, drift beyond --fail-over, nothing priced
	exitUsage       = 2   // bad usage or bad input
	exitFailure     = 2   // the run failed: an I/O error reading input or writing output, disk full; shares 2 with bad input, without a usage hint
	exitInterrupted = 130 // interrupted by SIGINT (Ctrl-C) or SIGTERM
)

// app is what every command shares: where tariffs come from, the output
// streams and the clock. Tests build their own with a fixed now.
type app struct {
	stdin    io.Reader
	stdout   io.Writer
	stderr   io.Writer
	now      func() time.Time
	getenv   func(string) string // nil: no environment (tests)
	tariffs  string              // --tariffs: a file or folder in place of the embedded catalog
	overlays []string            // --tariffs-overlay: files or folders whose providers replace the catalog's
	lists    []string            // --price-list: PROVIDER=LIST, embedded lists that replace their provider
	quiet    bool                // --quiet: no progress line on stderr

	terminal func() bool                       // nil: whether stderr is a terminal is asked of it (tests say)
	tick     func() (<-chan time.Time, func()) // nil: the progress line ticks each progressEvery (tests tick)

	once    sync.Once
	catalog *tariffs.Catalog
	loadErr error
	started bool // a command's RunE began: cobra accepted its flags and arguments
}

// Catalog loads the tariff catalog once: the file or folder given by
// --tariffs, else the embedded one, with each --tariffs-overlay applied.
// Warnings go to stderr; errors are bad input.
func (a *app) Catalog() (*tariffs.Catalog, error) {
	a.once.Do(func() {
		var ps tariffs.Problems
		a.catalog, ps, a.loadErr = a.loadCatalog()
		for _, p := range ps {
			fmt.Fprintln(a.stderr, p.Error())
		}
	})
	return a.catalog, a.loadErr
}

// loadCatalog reads the catalog anew, with its warnings.
func (a *app) loadCatalog() (*tariffs.Catalog, tariffs.Problems, error) {
	lists, err := a.priceLists()
	if err != nil {
		return nil, nil, err
	}
	restore := lessGC()
	cat, ps := tariffs.LoadLists(a.tariffs, lists, a.overlays...)
	restore()
	if errs := ps.Errors(); len(errs) > 0 {
		return nil, nil, usageError(fmt.Errorf("load tariffs:\n%w", errs), "run `tokenfare tariffs validate` with the same --tariffs, --price-list and --tariffs-overlay to see every problem")
	}
	return cat, ps, nil
}

// loadGCPercent is the collector's target while the catalog is built: the
// YAML's parse trees are garbage at once, and at the default target a
// command's start-up ran eight collections for a catalog of a few MiB.
const loadGCPercent = 400

// lessGC raises the collector's target to loadGCPercent and returns what
// puts it back; a target set higher (or off, by GOGC) is kept.
func lessGC() (restore func()) {
	prev := debug.SetGCPercent(loadGCPercent)
	if prev < 0 || prev > loadGCPercent {
		debug.SetGCPercent(prev)
		return func() {}
	}
	return func() { debug.SetGCPercent(prev) }
}

// priceLists reads each --price-list. A provider chosen twice is an error:
// one list would silently win.
func (a *app) priceLists() ([]tariffs.PriceList, error) {
	var out []tariffs.PriceList
	seen := map[string]string{}
	for _, s := range a.lists {
		l, err := tariffs.ParsePriceList(s)
		if err != nil {
			return nil, usageError(fmt.Errorf("--price-list: %w", err), "write --price-list deepseek=cny to price DeepSeek from its CNY list")
		}
		if prev, ok := seen[l.Provider]; ok {
			return nil, usageError(fmt.Errorf("--price-list: provider %s is given two lists (%s and %s)", l.Provider, prev, l), "choose one list per provider")
		}
		seen[l.Provider] = l.String()
		out = append(out, l)
	}
	return out, nil
}

// exitError carries an exit code and a hint with an error.
type exitError struct {
	code int
	err  error
	hint string
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// usageError marks err as bad usage or bad input (exit 2), with a hint.
func usageError(err error, hint string) error {
	return &exitError{code: exitUsage, err: err, hint: hint}
}

// findingsError marks err as findings (exit 1).
func findingsError(err error) error { return &exitError{code: exitFindings, err: err} }

// Main runs the command line with args and returns the exit code. The
// first SIGINT or SIGTERM cancels the run's context: reading stops, no
// output is written, and the exit code is 130. A second one ends the
// process at once. A reader closing the output pipe (| head) ends the run
// with exit 0.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// Without a handler, Go kills the process with SIGPIPE (exit 141) on
	// the first write to a closed stdout; with one, the write fails with
	// EPIPE, which runContext turns into a quiet exit 0.
	pipe := make(chan os.Signal, 1)
	signal.Notify(pipe, syscall.SIGPIPE)
	defer signal.Stop(pipe)
	go func() {
		<-ctx.Done()
		stop() // restore the default: a second signal kills
	}()
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr, now: time.Now, getenv: os.Getenv}
	return runContext(ctx, a, args)
}

// runContext runs the command tree and turns its error into an exit code,
// printing it once.
func runContext(ctx context.Context, a *app, args []string) int {
	// Every error and warning may quote input: none may act on the
	// terminal (textout.Escaping) or show a secret (secret.Writer).
	if _, ok := a.stderr.(*textout.Escaping); !ok {
		a.stderr = &textout.Escaping{W: &secret.Writer{W: a.stderr}}
	}
	cmd := newRootCmd(a)
	cmd.SetArgs(args)
	cmd.SetIn(a.stdin)
	cmd.SetOut(outputWriter{a.stdout})
	cmd.SetErr(a.stderr)
	err := cmd.ExecuteContext(ctx)
	var ee *exitError
	switch {
	case err == nil:
		return exitOK
	case ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)):
		fmt.Fprintln(a.stderr, "interrupted: nothing written")
		return exitInterrupted
	case errors.Is(err, syscall.EPIPE):
		return exitOK // whoever read the output stopped reading: nothing to say
	case errors.As(err, &ee):
		if ee.code != exitFindings || ee.err.Error() != "" {
			fmt.Fprintf(a.stderr, "Error: %v\n", ee.err)
		}
		if ee.hint != "" {
			fmt.Fprintf(a.stderr, "Try: %s\n", ee.hint)
		}
		return ee.code
	case a.started:
		// The command ran and failed: an I/O error, not bad usage.
		fmt.Fprintf(a.stderr, "Error: %v\n", err)
		return exitFailure
	}
	// Errors cobra raises itself (unknown flag, wrong argument count) are usage errors.
	fmt.Fprintf(a.stderr, "Error: %v\nTry: tokenfare --help\n", err)
	return exitUsage
}

// newRootCmd builds the whole command tree.
func newRootCmd(a *app) *cobra.Command {
	root := &cobra.Command{
		Use:   "tokenfare",
		Short: "Price LLM gateway calls by their timestamp and reconcile recorded spend",
		Long: `tokenfare prices every logged call of an LLM gateway at the official tariff in force at
its timestamp (versions, peak windows, time zones, holiday calendars), reconciles the
gateway's recorded spend against that official cost, and computes blended prices.

Exit codes: 0 fine, 1 findings (nothing priced included), 2 bad usage, bad input or
a run that could not finish (an I/O failure: disk full, unreadable input), 130 interrupted.`,
		Example: `  tokenfare tariffs show deepseek-flash
  tokenfare reconcile --calls testdata/sample/spendlogs-2026-10.csv
  tokenfare blend --calls testdata/sample/spendlogs-2026-10.csv --as-of 2026-11-01T00:00:00Z`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().StringVar(&a.tariffs, "tariffs", "", "tariff file or folder of *.yaml files that replaces the embedded catalog")
	root.PersistentFlags().StringArrayVar(&a.overlays, "tariffs-overlay", nil,
		"tariff file or folder laid over the catalog: each provider it defines replaces the catalog's provider of that name (repeatable)")
	root.PersistentFlags().StringArrayVar(&a.lists, "price-list", nil,
		"PROVIDER=LIST: price PROVIDER from another of its price lists in the catalog, e.g. deepseek=cny (repeatable)")
	root.PersistentFlags().BoolVar(&a.quiet, "quiet", false, "show no progress line on stderr (shown only when stderr is a terminal); warnings and errors still print")
	var cpuProfile string
	root.PersistentFlags().StringVar(&cpuProfile, "cpuprofile", "", "write a CPU profile to this file (for developers)")
	root.PersistentFlags().MarkHidden("cpuprofile")
	var memProfile string
	root.PersistentFlags().StringVar(&memProfile, "memprofile", "", "write a heap profile to this file when the command ends (for developers)")
	root.PersistentFlags().MarkHidden("memprofile")
	var stopProfile func() error
	root.PersistentPreRunE = func(*cobra.Command, []string) error {
		if memProfile != "" {
			runtime.MemProfileRate = 64 << 10
		}
		if cpuProfile == "" {
			return nil
		}
		f, err := os.Create(cpuProfile)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			_ = f.Close() // empty: the profile's error is the one reported
			return err
		}
		stopProfile = func() error { pprof.StopCPUProfile(); return f.Close() }
		return nil
	}
	root.PersistentPostRun = func(*cobra.Command, []string) {
		if stopProfile != nil {
			if err := stopProfile(); err != nil {
				fmt.Fprintln(a.stderr, "warning: CPU profile:", err)
			}
		}
		if memProfile != "" {
			writeHeapProfile(memProfile, a.stderr)
		}
	}
	root.Version = buildVersion()
	root.SetVersionTemplate("tokenfare {{.Version}}\n")
	root.AddCommand(newVersionCmd(a), newTariffsCmd(a), newPriceCmd(a), newReconcileCmd(a), newBlendCmd(a), newCheckCmd(a), newReportCmd(a), newChargebackCmd(a), newSavingsCmd(a), newFailuresCmd(a), newServeCmd(a))
	markStarted(a, root)
	return root
}

// markStarted makes each command note, as its RunE starts, that cobra
// accepted its flags and arguments: an error after that is the run's own.
func markStarted(a *app, cmd *cobra.Command) {
	if run := cmd.RunE; run != nil {
		cmd.RunE = func(c *cobra.Command, args []string) error {
			a.started = true
			return run(c, args)
		}
	}
	for _, sub := range cmd.Commands() {
		markStarted(a, sub)
	}
}

func newVersionCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print tokenfare's version, the commit it was built from and its date",
		Long: `Version prints the version, the commit and the commit's date a release build
was stamped with; a build without them (go install, go build in a work tree) shows the
module version Go recorded ("(devel)" for a work tree), the VCS revision and its time
where Go recorded them, and "modified" when the work tree had uncommitted changes; then
the Go release it was built with. tokenfare --version prints the same line.`,
		Example: "  tokenfare version\n  tokenfare --version",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintf(cmd.OutOrStdout(), "tokenfare %s\n", buildVersion())
			return err
		},
	}
}

// buildVersion describes the running binary: version, commit and date.
func buildVersion() string {
	return buildinfo.Read().String()
}

// isTerminal reports whether f is a terminal (for progress output).
func isTerminal(w io.Writer) bool {
	f, ok := textout.Unwrap(w).(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// outputWriter names its write errors as such ("write output: no space
// left on device"), so that they read as what they are.
type outputWriter struct{ w io.Writer }

func (o outputWriter) Write(p []byte) (int, error) {
	n, err := o.w.Write(p)
	if err != nil {
		err = fmt.Errorf("write output: %w", err)
	}
	return n, err
}

// writeHeapProfile writes the heap profile (every allocation since the
// command started) to path, after a collection so that the last
// allocations are in it.
func writeHeapProfile(path string, stderr io.Writer) {
	runtime.GC()
	f, err := os.Create(path)
	if err == nil {
		err = pprof.Lookup("allocs").WriteTo(f, 0)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, "warning: heap profile:", err)
	}
}
