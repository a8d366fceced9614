package cli

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
)

type priceOptions struct {
	source sourceOptions
	output string
}

func newPriceCmd(a *app) *cobra.Command {
	var opts priceOptions
	cmd := &cobra.Command{
		Use:   "price --calls FILE",
		Short: "Price every logged call at the tariff in force at its billing instant",
		Long: `Price writes one line per call read: the billing instant, the tariff model, what became
of the call (priced, unpriced, retired, failed, duplicate, outside), the tariff version and
period, the tokens of each usage type, the official cost and the spend the gateway recorded.
Rejected rows are listed on stderr and counted in the totals printed there.`,
		Example: `  tokenfare price --calls testdata/sample/spendlogs-2026-10.csv -o csv > priced.csv
  tokenfare price --calls usage.jsonl --since 2026-09-01 --until 2026-10-01 -o json
  zcat spendlogs.csv.gz | tokenfare price --calls - --billing-time start`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runPrice(cmd, a, &opts)
		},
	}
	opts.source.addFlags(cmd.Flags())
	opts.source.addWindowFlags(cmd.Flags())
	cmd.Flags().StringVarP(&opts.output, "output", "o", "csv", "output format: csv or json (one object per line)")
	completeSource(cmd)
	completeWith(cmd, "output", "csv", "json")
	return cmd
}

// pricedRow is the stable per-call output of `price`.
type pricedRow struct {
	RequestID  string `json:"request_id"`
	BilledAt   string `json:"billed_at"`
	Model      string `json:"model"`
	Logged     string `json:"logged_model"`
	Outcome    string `json:"outcome"`
	Version    string `json:"version"`
	Period     string `json:"period"`
	Tier       int    `json:"tier"`
	Key        string `json:"key"`
	Input      int64  `json:"input"`
	CacheRead  int64  `json:"cache_read"`
	CacheWrite int64  `json:"cache_write"`
	Output     int64  `json:"output"`
	Reasoning  int64  `json:"reasoning"`
	Official   string `json:"official"`
	Recorded   string `json:"recorded"`
	Gap        string `json:"gap"`
}

var priceHeader = []string{"request_id", "billed_at", "model", "logged_model", "outcome", "version", "period", "tier", "key",
	"input", "cache_read", "cache_write", "output", "reasoning", "official", "recorded", "gap"}

func (r *pricedRow) fields() []string {
	i := func(n int64) string { return strconv.FormatInt(n, 10) }
	return []string{r.RequestID, r.BilledAt, r.Model, r.Logged, r.Outcome, r.Version, r.Period, strconv.Itoa(r.Tier), r.Key,
		i(r.Input), i(r.CacheRead), i(r.CacheWrite), i(r.Output), i(r.Reasoning), r.Official, r.Recorded, r.Gap}
}

func runPrice(cmd *cobra.Command, a *app, opts *priceOptions) error {
	if err := checkOutput(opts.output, "csv", "json"); err != nil {
		return err
	}
	eopts, err := opts.source.engineOptions()
	if err != nil {
		return err
	}
	out := bufio.NewWriterSize(cmd.OutOrStdout(), 1<<16)
	var write func(*pricedRow) error
	opts.source.opened = func() error { // nothing is written before the input opens
		write = rowWriter(out, opts.output)
		return out.Flush() // the header, even when no call is read
	}
	var werr error
	e, err := a.priceSource(cmd.Context(), &opts.source, eopts, func(c *ledger.Call, pc *pricing.PricedCall) {
		if pc.Outcome == pricing.Outside || werr != nil {
			return
		}
		row := newPricedRow(c, pc)
		werr = write(&row)
	})
	if e == nil { // failed or interrupted: what is buffered is not written
		return err
	}
	if werr != nil {
		return werr
	}
	if ferr := out.Flush(); ferr != nil {
		return ferr
	}
	rows := e.Rows()
	fmt.Fprintf(a.stderr, "rows: read %d, priced %d, unpriced %d, retired %d, failed %d, duplicate %d, rejected %d, outside %d\n",
		rows.Read, rows.Priced, rows.Unpriced, rows.Retired, rows.Failed, rows.Duplicate, rows.Rejected, rows.Outside)
	return err // nothing priced, or nil
}

func newPricedRow(c *ledger.Call, pc *pricing.PricedCall) pricedRow {
	_, total := pc.Cost(c)
	row := pricedRow{RequestID: c.RequestID, BilledAt: pc.At.UTC().Format(time.RFC3339Nano), Model: pc.ModelName(),
		Logged: c.Model, Outcome: pc.Outcome.String(), Tier: pc.Tier, Key: c.Key,
		Input: c.Tokens.Input, CacheRead: c.Tokens.CacheRead, CacheWrite: c.Tokens.CacheWrite, Output: c.Tokens.Output,
		Reasoning: c.Tokens.Reasoning, Official: total.String(), Recorded: c.Recorded.String(), Gap: total.Sub(c.Recorded).String()}
	if pc.Quote.Version != nil {
		row.Version = pc.Quote.Version.Name
	}
	if pc.Outcome == pricing.Priced {
		row.Period = pc.Quote.PeriodName()
	}
	return row
}

// rowWriter returns a function writing one priced row in the format asked.
func rowWriter(out io.Writer, format string) func(*pricedRow) error {
	if format == "json" {
		enc := json.NewEncoder(out)
		return func(r *pricedRow) error { return enc.Encode(r) }
	}
	w := csv.NewWriter(out)
	w.Write(priceHeader)
	return func(r *pricedRow) error {
		w.Write(r.fields())
		w.Flush()
		return w.Error()
	}
}
