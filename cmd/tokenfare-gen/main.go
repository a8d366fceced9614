// Command tokenfare-gen writes a realistic, deterministic LiteLLM "LiteLLM_SpendLogs"
// CSV export for tests, samples and benchmarks.
//
//	go run ./cmd/tokenfare-gen -rows 20000 -days 30 -o testdata/sample/spendlogs-2026-10.csv
//	go run ./cmd/tokenfare-gen -rows 5000000 -o /tmp/big.csv
//	go run ./cmd/tokenfare-gen -format dump -rows 1000
//	go run ./cmd/tokenfare-gen -rows 1000000 -model-names 1000000 -o /tmp/names.csv
//
// The flat format has one column per field, cache and reasoning tokens
// included. The dump format looks like a whole-table export of the
// PostgreSQL table: cache and reasoning tokens, key and team aliases live
// only in the metadata JSON column, and spend is printed the way PostgreSQL
// prints a double (1.4e-05 below 0.0001).
//
// # What the data looks like
//
//   - About 40 API keys, Zipf-skewed, in a handful of teams, with aliases.
//     api_key is the SHA-256 hex of a fake raw key, as LiteLLM stores it.
//   - Traffic peaks in Beijing working hours on working days (2026 PRC
//     holidays are quiet, make-up workdays are busy), lighter at night and on
//     weekends. Rows come out in startTime order.
//   - Models: deepseek-flash, its legacy name deepseek-v4-flash, deepseek-v4-pro,
//     gpt-4o, claude-sonnet-4-5 and a few calls of a model no tariff knows.
//   - Billing modifiers, drawn from a random stream of their own: 1-hour
//     cache writes, web searches, batch and priority rows; US-only
//     inference only on a model that accepts it (none of the sample's:
//     Sonnet 4.5 does not); DeepSeek Search and Fetch uses.
//   - prompt_tokens includes cached_tokens and cache_creation_tokens;
//     completion_tokens includes reasoning_tokens.
//   - About 2% failures (spend 0, some with no tokens), about 0.1% repeated
//     request ids, a few priced calls logged with spend 0.
//   - Recorded spend is the gateway's stale flat price: DeepSeek flash names
//     at the 2026-08-16 v4-flash peak rates at every hour, v4-pro at its peak
//     rates, gpt-4o and Claude at their list prices. It is computed exactly in
//     decimal and printed as a plain decimal string.
//
// The output is byte-identical for the same flags (and the same Go release
// and architecture: token sizes are drawn through floating-point functions).
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"time"
)

// config holds the generator's flags.
type config struct {
	Rows   int
	Seed   uint64
	Start  time.Time
	Days   int
	Format string // "flat" or "dump"
	// ModelNames, when positive, gives row i the model (and model group
	// and deployment) "custom-model-<i mod ModelNames>" instead of its
	// own, for tests of how many distinct names a run holds.
	ModelNames int
	// Keys, when positive, gives row i the key, user and team of number
	// i mod Keys, each its own, in place of the usual 40 keys.
	Keys int
}

func main() {
	cfg, out, err := parseFlags(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(2)
	}
	if err := writeFile(out, cfg); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// parseFlags reads the command line into a config and the output path.
func parseFlags(args []string) (config, string, error) {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	rows := fs.Int("rows", 10000, "number of rows to write")
	seed := fs.Uint64("seed", 1, "random seed; the same flags give the same bytes")
	start := fs.String("start", "2026-09-01T00:00:00Z", "first instant covered (RFC 3339)")
	days := fs.Int("days", 30, "number of days covered")
	format := fs.String("format", "flat", "flat (one column per field) or dump (whole table, metadata JSON)")
	out := fs.String("o", "-", "output file; - for stdout")
	keys := fs.Int("keys", 0, "give the rows this many distinct keys, users and teams, row i the (i mod N)-th (0: the usual 40 keys)")
	names := fs.Int("model-names", 0, "give the rows this many distinct model names no tariff knows, row i the (i mod N)-th (0: the usual models)")
	if err := fs.Parse(args); err != nil {
		return config{}, "", err
	}
	t, err := time.Parse(time.RFC3339, *start)
	if err != nil {
		return config{}, "", fmt.Errorf("-start %q: %v", *start, err)
	}
	cfg := config{Rows: *rows, Seed: *seed, Start: t.UTC(), Days: *days, Format: *format, ModelNames: *names, Keys: *keys}
	return cfg, *out, cfg.validate()
}

func (c config) validate() error {
	switch {
	case c.Rows < 0:
		return fmt.Errorf("-rows %d: must not be negative", c.Rows)
	case c.Days < 1:
		return fmt.Errorf("-days %d: must be at least 1", c.Days)
	case c.ModelNames < 0:
		return fmt.Errorf("-model-names %d: must not be negative", c.ModelNames)
	case c.Keys < 0:
		return fmt.Errorf("-keys %d: must not be negative", c.Keys)
	case c.Format != "flat" && c.Format != "dump":
		return fmt.Errorf("-format %q: want flat or dump", c.Format)
	}
	return nil
}

// writeFile writes the generated export to path ("-" for stdout).
func writeFile(path string, cfg config) error {
	if path == "-" || path == "" {
		return generate(os.Stdout, cfg)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := generate(f, cfg); err != nil {
		_ = f.Close() // the write's error is the one reported
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}

// generate streams cfg.Rows rows, header first, to w.
func generate(w io.Writer, cfg config) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	g := newGenerator(cfg)
	enc := newEncoder(cfg.Format)
	buf := enc.header(make([]byte, 0, 4096))
	row := 0
	err := g.run(func(c *call) error {
		if cfg.ModelNames > 0 {
			d := *c.Dep
			d.Model = fmt.Sprintf("custom-model-%07d", row%cfg.ModelNames)
			d.Group, d.ID = d.Model, d.Model
			renamed := *c
			renamed.Dep = &d
			c = &renamed
		}
		if cfg.Keys > 0 {
			n := row % cfg.Keys
			k := *c.Key
			k.Hash, k.Alias, k.User = fmt.Sprintf("%064x", n), fmt.Sprintf("key-%07d", n), fmt.Sprintf("u-%07d", n)
			k.Team = &team{ID: fmt.Sprintf("t-%07d", n), Alias: fmt.Sprintf("team-%07d", n)}
			rekeyed := *c
			rekeyed.Key = &k
			c = &rekeyed
		}
		row++
		buf = enc.row(buf, c)
		if len(buf) < 32<<10 {
			return nil
		}
		_, err := bw.Write(buf)
		buf = buf[:0]
		return err
	})
	if err != nil {
		return err
	}
	if _, err := bw.Write(buf); err != nil {
		return err
	}
	return bw.Flush()
}
