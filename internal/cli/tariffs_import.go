package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/tokenfare/tokenfare/reports"
	"github.com/tokenfare/tokenfare/tariffs"
	"github.com/tokenfare/tokenfare/tariffs/drift"
	"github.com/tokenfare/tokenfare/tariffs/importer"
)

type importOptions struct {
	files      []string
	out        string
	replace    bool
	providers  []string
	models     []string
	effective  string
	commitDate string
	commit     string
	urls       []string
}

func newTariffsImportCmd(a *app) *cobra.Command {
	var opts importOptions
	cmd := &cobra.Command{
		Use:   "import FILE... --out DIR",
		Short: "Write tariff files from a peer price table for the models the catalog lacks",
		Long: `Import reads peer price tables (LiteLLM's model_prices_and_context_window.json, genai-prices
provider files, models.dev's api.json; the format is told by content) and writes into DIR one
tariff file per host, imported-<host>.yaml, for the models the catalog (--tariffs, else the
embedded one, with its overlays) does not price on that host. Lay the folder over the catalog
with --tariffs-overlay DIR to price their calls; it adds providers and takes nothing from the
catalog's.

Each file holds the table's flat token prices (input, cache read and write, output, reasoning,
the fee per call), its prompt-size tiers, batch, flex and priority rates and tool fees, exactly
as written, in one version in force from --effective: by default the table's own date (a LiteLLM
copy's last_updated), else --commit-date, the date of the commit the file was taken from. Its
source is the table, of kind secondary, and every model's note names the entry it comes from.

An entry is left out, and named on stderr with why: one the table's reader cannot read, marked
removed, not priced per token (embeddings, images), without a price or an input and output
price, whose prices depend on the time of day, on a host tokenfare does not know, or under a
name the catalog prices on its host. --replace imports the last kind too: each such model then
replaces the catalog's (replaces: in the file). --provider and --model choose entries.

DIR is created if need be, and must hold no tariff files yet.`,
		Example: `  tokenfare tariffs import model_prices_and_context_window.json --out imported/
  tokenfare tariffs import api.json --out imported/ --provider openrouter --commit-date 2026-07-02
  tokenfare tariffs import genai-prices/prices/providers/openrouter.yml --out imported/ --commit 47df840 --commit-date 2026-08-21
  tokenfare tariffs validate --tariffs-overlay imported/
  tokenfare reconcile --calls spend.csv --tariffs-overlay imported/`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.files = args
			return runTariffsImport(cmd.Context(), a, cmd.OutOrStdout(), &opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.out, "out", "", "folder to write the tariff files into (required)")
	f.BoolVar(&opts.replace, "replace", false, "import models the catalog prices too, replacing the catalog's")
	f.StringArrayVar(&opts.providers, "provider", nil, "import only this host or table provider (repeatable)")
	f.StringArrayVar(&opts.models, "model", nil, "import only this model name; a trailing * matches any ending (repeatable)")
	f.StringVar(&opts.effective, "effective", "", "instant the imported prices take effect (RFC 3339 or a date, UTC); default: the table's date")
	f.StringVar(&opts.commitDate, "commit-date", "", "date of the commit the files were taken from, for a table that carries no date (YYYY-MM-DD or RFC 3339)")
	f.StringVar(&opts.commit, "commit", "", "commit the files were taken from, named in the sources")
	f.StringArrayVar(&opts.urls, "url", nil, "where the table is published, as the source's url: once, or once per FILE in order (default: the format's own)")
	return cmd
}

func runTariffsImport(ctx context.Context, a *app, out io.Writer, opts *importOptions) error {
	if opts.out == "" {
		return usageError(errors.New("no folder to write into"), "give --out DIR")
	}
	if n := len(opts.urls); n > 1 && n != len(opts.files) {
		return usageError(fmt.Errorf("%d --url for %d files", n, len(opts.files)), "give one --url, or one per FILE in order")
	}
	tables, err := readTables(ctx, opts)
	if err != nil {
		return err
	}
	iopts, err := importDates(opts, tables)
	if err != nil {
		return err
	}
	iopts.Providers, iopts.Models, iopts.Replace = opts.providers, opts.models, opts.replace
	cat, err := a.Catalog()
	if err != nil {
		return err
	}
	res, err := importer.Import(cat, tables, iopts)
	if err != nil {
		return err
	}
	for _, s := range res.Skipped {
		fmt.Fprintf(a.stderr, "skipped %s:%d: %q: %s\n", s.File, s.Line, s.Name, s.Detail)
	}
	if err := writeImported(opts.out, res.Files); err != nil {
		return err
	}
	return reports.Imported(out, opts.out, iopts.Effective, res)
}

// readTables reads each FILE, with the url and commit it is named by.
func readTables(ctx context.Context, opts *importOptions) ([]*importer.Table, error) {
	var tables []*importer.Table
	for i, name := range opts.files {
		db, err := readPriceDB(ctx, name)
		if err != nil {
			return nil, err
		}
		t := &importer.Table{DB: db, Commit: opts.commit, URL: tableURL(db, opts.commit)}
		switch len(opts.urls) {
		case 1:
			t.URL = opts.urls[0]
		case len(opts.files):
			t.URL = opts.urls[i]
		}
		tables = append(tables, t)
	}
	return tables, nil
}

// tableURL is where a table of db's format is published: its repository's
// file at the commit (else its main branch), models.dev's API.
func tableURL(db *drift.Database, commit string) string {
	ref := commit
	if ref == "" {
		ref = "main"
	}
	switch db.Format {
	case drift.LiteLLM:
		return "https://github.com/BerriAI/litellm/blob/" + ref + "/model_prices_and_context_window.json"
	case drift.GenAIPrices:
		return "https://github.com/pydantic/genai-prices/blob/" + ref + "/prices/providers/" + path.Base(filepath.ToSlash(db.File))
	}
	if commit != "" {
		return "https://github.com/anomalyco/models.dev/tree/" + commit
	}
	return "https://models.dev/api.json"
}

// importDates decides the effective instant and the sources' checked
// date: --effective, else the latest of the tables' dates, each its own
// or --commit-date. A table with neither refuses the import.
func importDates(opts *importOptions, tables []*importer.Table) (importer.Options, error) {
	var o importer.Options
	var commitDate, latest time.Time
	var err error
	if opts.commitDate != "" {
		if commitDate, err = parseInstantTZ("commit-date", opts.commitDate, "UTC"); err != nil {
			return o, err
		}
	}
	for _, t := range tables {
		d := t.DB.Date
		if d.IsZero() {
			d = commitDate
		}
		if d.IsZero() && opts.effective == "" {
			return o, usageError(fmt.Errorf("%s carries no date of its own: the imported prices need the instant they take effect", t.DB.File),
				"give --commit-date (the date of the commit the file was taken from) or --effective")
		}
		if d.After(latest) {
			latest = d
		}
	}
	o.Effective = latest.Truncate(time.Minute)
	if opts.effective != "" {
		if o.Effective, err = parseInstantTZ("effective", opts.effective, "UTC"); err != nil {
			return o, err
		}
		o.Effective = o.Effective.Truncate(time.Minute)
	}
	if latest.IsZero() {
		latest = o.Effective
	}
	o.Checked = latest.UTC().Format(time.DateOnly)
	return o, nil
}

// writeImported writes the files into dir, made if need be, which must
// hold no tariff files: an import is not laid over an older one.
func writeImported(dir string, files []importer.File) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return usageError(fmt.Errorf("create %s: %w", dir, unwrapPathError(err)), "")
	}
	if old, err := tariffs.Files(dir); err == nil {
		return usageError(fmt.Errorf("%s holds tariff files already (%s)", dir, filepath.Base(old[0])),
			"give an empty or new folder, or remove the files of the earlier import")
	}
	for _, f := range files {
		af, err := writeAtomic(filepath.Join(dir, f.Name), func(w io.Writer) error {
			_, err := w.Write(f.Data)
			return err
		})
		if err != nil {
			return err
		}
		if err := af.Commit(); err != nil {
			return err
		}
	}
	return nil
}
