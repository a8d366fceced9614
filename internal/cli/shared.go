package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/tokenfare/tokenfare/internal/jsonout"
	"github.com/tokenfare/tokenfare/pricing/threeway"
	"github.com/tokenfare/tokenfare/provider"
	"github.com/tokenfare/tokenfare/reports"
)

// Helpers every command shares: output formats, instants and lengths of
// time from flags. Command files use these and define none of their own
// for other commands.

func writeJSON(out io.Writer, v any) error { return jsonout.Write(out, v) }

// The range of instants tokenfare handles, as the readers do: from 1970
// (the zero instant means "no bound" inside) through 2261 (the last year
// Unix nanoseconds hold).
var (
	minInstant = time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)
	maxInstant = time.Date(2262, 1, 1, 0, 0, 0, 0, time.UTC) // exclusive
)

// instantRange is how messages name the range of instants.
const instantRange = "tokenfare handles instants from 1970 through 2261"

// parseInstantTZ reads an instant given on the command line: RFC 3339, or
// a date, read as midnight in the IANA zone tz (the --tz flag).
func parseInstantTZ(flag, s, tz string) (time.Time, error) {
	loc, err := loadZone(tz)
	if err != nil {
		return time.Time{}, err
	}
	return parseInstantIn(flag, s, loc)
}

// parseInstantIn reads an instant given on the command line: RFC 3339, or
// a date, read as midnight in loc. It must lie in 1970 through 2261.
func parseInstantIn(flag, s string, loc *time.Location) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		d, derr := time.ParseInLocation(time.DateOnly, s, loc)
		if derr != nil {
			return time.Time{}, usageError(fmt.Errorf("--%s %q is not an instant", flag, s),
				fmt.Sprintf("write an RFC 3339 instant like 2026-09-01T02:00:00Z, or a date like 2026-09-01 (midnight in %s)", loc))
		}
		t = d
	}
	return checkInstant(flag, s, t.UTC())
}

// checkInstant refuses an instant outside the range tokenfare handles.
func checkInstant(flag, s string, t time.Time) (time.Time, error) {
	hint := ""
	if flag == "since" || flag == "until" {
		hint = "leave --" + flag + " out for no bound"
	}
	switch {
	case t.Before(minInstant):
		return time.Time{}, usageError(fmt.Errorf("--%s %s is before 1970: %s", flag, s, instantRange), hint)
	case !t.Before(maxInstant):
		return time.Time{}, usageError(fmt.Errorf("--%s %s is after 2261: %s", flag, s, instantRange), hint)
	}
	return t, nil
}

// parseMonth reads --month 2026-10: the month's first instant and the next
// month's, at midnight in loc.
func parseMonth(s string, loc *time.Location) (from, until time.Time, err error) {
	m, err := time.ParseInLocation("2006-01", s, loc)
	if err != nil {
		return from, until, usageError(fmt.Errorf("--month %q is not a month", s), "write e.g. --month 2026-10")
	}
	if from, err = checkInstant("month", s, m.UTC()); err != nil {
		return from, until, err
	}
	until = m.AddDate(0, 1, 0).UTC()
	if !until.Before(maxInstant) {
		return from, until, usageError(fmt.Errorf("--month %s is after 2261: %s", s, instantRange), "")
	}
	return from, until, nil
}

// loadZone reads a --tz value: an IANA zone name; the machine's zone
// ("Local") is refused, so that results do not depend on the machine.
func loadZone(name string) (*time.Location, error) {
	loc, err := time.LoadLocation(name)
	if err != nil || name == "Local" {
		return nil, usageError(fmt.Errorf("--tz %q is not an IANA time zone", name), "write e.g. --tz UTC or --tz Asia/Shanghai")
	}
	return loc, nil
}

func unwrapPathError(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
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

// maxWindowDays is the longest --window: a time.Duration holds about
// 292 years, more than the range of instants tokenfare handles.
const maxWindowDays = 106_751

// parseWindow reads "28d" or a Go duration such as "36h": positive and at
// most maxWindowDays days.
func parseWindow(s string) (time.Duration, error) {
	const hint = "write e.g. --window 28d or --window 36h"
	var d time.Duration
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.ParseInt(days, 10, 64)
		if err != nil {
			return 0, usageError(fmt.Errorf("--window %q is not a length of time", s), hint)
		}
		if n > maxWindowDays {
			return 0, usageError(fmt.Errorf("--window %s is longer than the %d days a window can span (%s)", s, maxWindowDays, instantRange), hint)
		}
		d = time.Duration(n) * 24 * time.Hour
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			if strings.Contains(err.Error(), "invalid duration") && s != "" && strings.Trim(s, "0123456789nsuµmh") == "" {
				// Only digits and units, yet refused: too long for a duration.
				return 0, usageError(fmt.Errorf("--window %s is longer than the %d days a window can span (%s)", s, maxWindowDays, instantRange), hint)
			}
			return 0, usageError(fmt.Errorf("--window %q is not a length of time", s), hint)
		}
	}
	if d <= 0 {
		return 0, usageError(fmt.Errorf("--window %s must be positive", s), hint)
	}
	return d, nil
}

// orDash writes an empty value as "-" in text output.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
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

// firstNaming reports whether path (cleaned) is new to named, and adds
// it; a repeat is said on stderr, as it is read only once.
func (a *app) firstNaming(named map[string]bool, path string) bool {
	key := filepath.Clean(path)
	if named[key] {
		fmt.Fprintf(a.stderr, "note: %s is given more than once; it is read once\n", path)
		return false
	}
	named[key] = true
	return true
}

// readProviderExports reads the provider usage and cost exports given to
// --provider-usage, each path once (an export read twice would count the
// provider's usage twice), and returns their rows.
func readProviderExports(cmd *cobra.Command, a *app, paths []string) ([]threeway.Row, error) {
	exports := make([]*provider.Export, 0, len(paths))
	named := map[string]bool{}
	for _, path := range paths {
		if !a.firstNaming(named, path) {
			continue
		}
		x, err := provider.ReadFile(cmd.Context(), path)
		if err != nil {
			return nil, providerError(err)
		}
		exports = append(exports, x)
	}
	return provider.ThreeWayRows(exports), nil
}

// providerError tells a bad path or bad content (bad usage) from other
// failures.
func providerError(err error) error {
	var pe *provider.Error
	switch {
	case errors.As(err, &pe):
		return usageError(fmt.Errorf("read provider usage %w", err), "see docs/provider-usage.md for the exports tokenfare reads")
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, fs.ErrPermission):
		return usageError(fmt.Errorf("read provider usage: %w", err), "check the path given to --provider-usage")
	}
	return fmt.Errorf("read provider usage: %w", err)
}
