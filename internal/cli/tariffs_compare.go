package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/tokenfare/tokenfare/tariffs/drift"
)

type compareOptions struct {
	files  []string
	at     string
	output string
}

func newTariffsCompareCmd(a *app) *cobra.Command {
	var opts compareOptions
	cmd := &cobra.Command{
		Use:   "compare FILE...",
		Short: "Compare the catalog with LiteLLM's price table or genai-prices files",
		Long: `Compare puts the catalog (or the --tariffs folder) beside other price databases:
LiteLLM's model_prices_and_context_window.json (prices per token, off_peak_pricing
blocks) and genai-prices provider files (prices/providers/*.yml). It maps names,
converts prices to USD per 1M tokens, and lists every model and usage type whose
price differs at --at (default now), models one side lacks (for providers both cover),
and time-of-use rules that differ over the week from --at and on every holiday or
make-up workday either side names. Exit 1 when it finds any difference, 0 when none.`,
		Example: `  tokenfare tariffs compare model_prices_and_context_window.json
  tokenfare tariffs compare genai-prices/prices/providers/deepseek.yml --at 2026-10-12T02:00:00Z -o json`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.files = args
			return runTariffsCompare(cmd.Context(), a, cmd.OutOrStdout(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.at, "at", "", "instant to compare prices at (RFC 3339 or date; default now)")
	cmd.Flags().StringVarP(&opts.output, "output", "o", "table", "output format: table or json")
	completeWith(cmd, "output", "table", "json")
	return cmd
}

func runTariffsCompare(ctx context.Context, a *app, out io.Writer, opts compareOptions) error {
	if err := checkOutput(opts.output, "table", "json"); err != nil {
		return err
	}
	at := a.now().UTC()
	if opts.at != "" {
		var err error
		if at, err = parseInstant("at", opts.at); err != nil {
			return err
		}
	}
	cat, err := a.Catalog()
	if err != nil {
		return err
	}
	var dbs []*drift.Database
	for _, name := range opts.files {
		db, err := readPriceDB(ctx, name)
		if err != nil {
			return err
		}
		dbs = append(dbs, db)
	}
	view := newCompareView(at, dbs, drift.Compare(cat, dbs, at))
	if opts.output == "json" {
		err = writeJSON(out, view)
	} else {
		err = view.writeText(out)
	}
	if err != nil {
		return err
	}
	if n := len(view.Differences); n > 0 {
		return findingsError(fmt.Errorf("%d difference(s) between the catalog and %d file(s)", n, len(dbs)))
	}
	return nil
}

func readPriceDB(ctx context.Context, name string) (*drift.Database, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, usageError(fmt.Errorf("read %s: %w", name, unwrapPathError(err)), "give LiteLLM's model_prices_and_context_window.json or genai-prices provider files")
	}
	defer f.Close()
	db, err := drift.Read(ctx, name, f)
	if err != nil {
		return nil, usageError(err, "")
	}
	return db, nil
}

// compareView is the stable JSON shape of `tariffs compare`.
type compareView struct {
	At          string           `json:"at"`
	Files       []compareFile    `json:"files"`
	Differences []differenceView `json:"differences"`
}

type compareFile struct {
	File    string `json:"file"`
	Format  string `json:"format"`
	Entries int    `json:"entries"`
}

type differenceView struct {
	Kind    string `json:"kind"` // price, only_in_catalog, only_in_other, time_of_use
	Model   string `json:"model,omitempty"`
	File    string `json:"file"`
	Name    string `json:"name,omitempty"`   // the name the other database lists
	Source  string `json:"source,omitempty"` // file:line of that entry
	Usage   string `json:"usage,omitempty"`
	Above   int64  `json:"above,omitempty"` // prompt-size tier: prompts above this many tokens
	Period  string `json:"period,omitempty"`
	Catalog string `json:"catalog,omitempty"` // price per 1M tokens (request: per call)
	Other   string `json:"other,omitempty"`
	From    string `json:"from,omitempty"`
	Until   string `json:"until,omitempty"`
	Note    string `json:"note,omitempty"`
}

func newCompareView(at time.Time, dbs []*drift.Database, fs []drift.Finding) compareView {
	v := compareView{At: at.Format(time.RFC3339), Differences: []differenceView{}}
	for _, db := range dbs {
		v.Files = append(v.Files, compareFile{File: db.File, Format: string(db.Format), Entries: len(db.Entries)})
	}
	for _, f := range fs {
		d := differenceView{Kind: f.Kind.String(), File: f.Database.File, Period: f.Period, Note: f.Note}
		if f.Model != nil {
			d.Model = f.Model.ID
		}
		if f.Entry != nil {
			d.Name, d.Source = f.Entry.Name, f.Entry.Where()
		}
		if f.Kind == drift.PriceDiffers {
			d.Usage, d.Above, d.Catalog, d.Other = f.Usage.String(), f.Above, f.Catalog.String(), f.Other.String()
		}
		if !f.From.IsZero() {
			d.From, d.Until = f.From.Format(time.RFC3339), f.Until.Format(time.RFC3339)
		}
		v.Differences = append(v.Differences, d)
	}
	return v
}

func (v compareView) writeText(out io.Writer) error {
	w := &errWriter{w: out}
	for _, f := range v.Files {
		w.printf("%s: %s, %d entries\n", f.File, f.Format, f.Entries)
	}
	if len(v.Differences) == 0 {
		w.printf("no differences at %s\n", v.At)
		return w.err
	}
	w.printf("%d difference(s) at %s (prices per 1M tokens)\n\n", len(v.Differences), v.At)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KIND\tMODEL\tOTHER NAME\tUSAGE\tPERIOD\tCATALOG\tOTHER\tDETAIL\tSOURCE")
	for _, d := range v.Differences {
		usage := d.Usage
		if d.Above > 0 {
			usage = fmt.Sprintf("%s (prompt > %d)", d.Usage, d.Above)
		}
		detail := d.Note
		if d.From != "" {
			detail = fmt.Sprintf("%s to %s: %s", d.From, d.Until, d.Note)
		}
		source := d.Source
		if source == "" {
			source = d.File
		}
		cells := []string{d.Kind, d.Model, d.Name, usage, d.Period, d.Catalog, d.Other, detail, source}
		for i, c := range cells {
			if c == "" {
				cells[i] = "-"
			}
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	tw.Flush()
	return w.err
}
