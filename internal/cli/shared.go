package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/tokenfare/tokenfare/reports"
)

// Helpers every command shares: output formats, instants and lengths of
// time from flags, text output that keeps its first write error. Command
// files use these and define none of their own for other commands.

// errWriter keeps the first write error so text output reads straight.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}

func writeJSON(out io.Writer, v any) error {
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// parseInstant reads an instant given on the command line: RFC 3339, or a
// date (midnight UTC).
func parseInstant(flag, s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC(), nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	return time.Time{}, usageError(fmt.Errorf("--%s %q is not an instant", flag, s), "write an RFC 3339 instant like 2026-09-01T02:00:00Z, or a date like 2026-09-01 (midnight UTC)")
}

func unwrapPathError(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// checkOutput accepts an -o value among the formats a command writes.
func checkOutput(output string, formats ...string) error {
	for _, f := range formats {
		if f == output {
			return nil
		}
	}
	return usageError(fmt.Errorf("unknown output format %q", output), "use -o "+strings.Join(formats, ", -o "))
}

// parseOutput reads an -o value among the formats a command writes.
func parseOutput(output string, offered ...reports.Format) (reports.Format, error) {
	f, err := reports.ParseFormat(output, offered...)
	if err != nil {
		names := make([]string, len(offered))
		for i, o := range offered {
			names[i] = o.String()
		}
		return f, usageError(fmt.Errorf("unknown output format %q", output), "use -o "+strings.Join(names, ", -o "))
	}
	return f, nil
}

// parseWindow reads "28d" or a Go duration such as "36h".
func parseWindow(s string) (time.Duration, error) {
	if days, ok := strings.CutSuffix(s, "d"); ok {
		if n, err := strconv.Atoi(days); err == nil && n > 0 {
			return time.Duration(n) * 24 * time.Hour, nil
		}
	} else if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return d, nil
	}
	return 0, usageError(fmt.Errorf("--window %q is not a length of time", s), "write e.g. --window 28d or --window 36h")
}

// groupRunE runs a command that only groups others: alone it prints its
// help; an unknown subcommand is bad usage (cobra would print the help and
// exit 0).
func groupRunE(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usageError(fmt.Errorf("unknown command %q for %q", args[0], cmd.CommandPath()),
			fmt.Sprintf("%s --help lists its commands", cmd.CommandPath()))
	}
	return cmd.Help()
}
