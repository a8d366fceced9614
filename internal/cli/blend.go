package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"

	"github.com/tokenfare/tokenfare/pricing"
)

type blendOptions struct {
	source sourceOptions
	asOf   string
	window string
	month  string
	mode   string
	output string
}

func newBlendCmd(a *app) *cobra.Command {
	var opts blendOptions
	cmd := &cobra.Command{
		Use:   "blend --calls FILE",
		Short: "Compute the blended price per model and usage type over a window",
		Long: `Blend prices the calls billed in the window before --as-of (default: the 28 days before
now) and gives, per model and usage type, the blended price per 1M tokens: official cost
divided by tokens. Pricing the window's tokens at the blended prices gives its official
cost to within half a unit of the 9th decimal place per 1M tokens; a blended price always
lies between the lowest (off-peak) and highest (peak) price that applied.

--mode gateway applies one gateway-wide peak share (the share of peak in the window's cost
at off-peak prices) to every time-of-use model instead, as a single flat setting would.
Models the catalog prices but with no calls in the window are listed with the reason.`,
		Example: `  tokenfare blend --calls testdata/sample/spendlogs-2026-10.csv --as-of 2026-10-01
  tokenfare blend --calls spendlogs.csv --window 7d --mode gateway -o json
  tokenfare blend --calls spendlogs.csv -o yaml
  tokenfare blend --calls 'exports/*.csv' --month 2026-10 --tz Asia/Shanghai`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runBlend(cmd, a, &opts)
		},
	}
	opts.source.addFlags(cmd.Flags())
	cmd.Flags().StringVar(&opts.asOf, "as-of", "", "end of the window, exclusive (RFC 3339, or a date: midnight in --tz; default now)")
	cmd.Flags().StringVar(&opts.window, "window", "28d", "length of the window: days (28d) or a duration (36h)")
	cmd.Flags().StringVar(&opts.month, "month", "", "blend over this month of --tz, e.g. 2026-10: the window is the whole month, instead of --as-of and --window")
	cmd.Flags().StringVar(&opts.mode, "mode", pricing.ModePerModel, "per-model or gateway")
	cmd.Flags().StringVarP(&opts.output, "output", "o", "table", "output format: table, json or yaml")
	completeSource(cmd)
	completeWith(cmd, "mode", pricing.ModePerModel, pricing.ModeGateway)
	completeWith(cmd, "output", "table", "json", "yaml")
	return cmd
}

func runBlend(cmd *cobra.Command, a *app, opts *blendOptions) error {
	if err := checkOutput(opts.output, "table", "json", "yaml"); err != nil {
		return err
	}
	if opts.mode != pricing.ModePerModel && opts.mode != pricing.ModeGateway {
		return usageError(fmt.Errorf("unknown --mode %q", opts.mode), "use --mode per-model or --mode gateway")
	}
	eopts, err := opts.source.engineOptions()
	if err != nil {
		return err
	}
	if eopts.Since, eopts.Until, err = opts.windowBounds(cmd, a.now(), eopts.Zone); err != nil {
		return err
	}
	opts.source.asOfHint = opts.month == ""
	e, err := a.priceSource(cmd.Context(), &opts.source, eopts, nil)
	if err != nil {
		return err
	}
	bl, err := e.BlendWindow(eopts.Since, eopts.Until, opts.mode)
	if err != nil {
		return usageError(err, "")
	}
	out := cmd.OutOrStdout()
	switch opts.output {
	case "json":
		return writeJSON(out, bl)
	case "yaml":
		return writeBlendYAML(out, bl)
	}
	return writeBlendTable(out, bl)
}

// windowBounds returns the window blended: --month, or the --window
// before --as-of (default now), starting no earlier than 1970.
func (o *blendOptions) windowBounds(cmd *cobra.Command, now time.Time, loc *time.Location) (from, until time.Time, err error) {
	if o.month != "" {
		if cmd.Flags().Changed("as-of") || cmd.Flags().Changed("window") {
			return from, until, usageError(errors.New("--month is given with --as-of or --window"), "give either --month or --as-of/--window")
		}
		return parseMonth(o.month, loc)
	}
	window, err := parseWindow(o.window)
	if err != nil {
		return from, until, err
	}
	until = now.UTC()
	if o.asOf != "" {
		if until, err = parseInstantIn("as-of", o.asOf, loc); err != nil {
			return from, until, err
		}
	}
	from = minInstant
	if until.Sub(minInstant) > window {
		from = until.Add(-window)
	}
	return from, until, nil
}

// writeBlendYAML writes the JSON document as YAML, so that both outputs
// share one set of field names and order.
func writeBlendYAML(out io.Writer, bl *pricing.Blend) error {
	data, err := json.Marshal(bl)
	if err != nil {
		return err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return err
	}
	blockStyle(&doc)
	enc := yaml.NewEncoder(out)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return err
	}
	return enc.Close()
}

// blockStyle drops the flow and quoting styles JSON input gives every node;
// the encoder still quotes strings that would read as numbers.
func blockStyle(n *yaml.Node) {
	n.Style = 0
	for _, c := range n.Content {
		blockStyle(c)
	}
}

func writeBlendTable(out io.Writer, bl *pricing.Blend) error {
	w := &errWriter{w: out}
	w.printf("window    %s to %s (%s)\n", bl.From, bl.Until, bl.Mode)
	if bl.PeakShare != "" {
		w.printf("peak share of cost at off-peak prices: %s\n", bl.PeakShare)
	}
	r := bl.Rows
	w.printf("rows      read %d: priced %d, outside the window %d, other %d\n\n", r.Read, r.Priced, r.Outside, r.Read-r.Priced-r.Outside)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "MODEL\tUSAGE\tTOKENS\tPEAK SHARE\tOFF-PEAK\tPEAK\tBLENDED /1M\t")
	for _, m := range bl.Models {
		if m.Reason != "" {
			fmt.Fprintf(tw, "%s\t-\t-\t-\t-\t-\t%s\t\n", m.Model, m.Reason)
			continue
		}
		for _, p := range m.Prices {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\t\n", m.Model, p.Usage, p.Tokens, orDash(p.PeakShare), p.OffPeak, p.Peak, p.Blended)
		}
	}
	tw.Flush()
	return w.err
}
