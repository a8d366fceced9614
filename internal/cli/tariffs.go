package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/tokenfare/tokenfare/internal/yamlin"
	"github.com/tokenfare/tokenfare/reports"
	"github.com/tokenfare/tokenfare/tariffs"
)

func newTariffsCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tariffs",
		Short: "Validate, list and show tariff tables",
		Example: `  tokenfare tariffs validate tariffs/catalog
  tokenfare tariffs list
  tokenfare tariffs show deepseek-flash --at 2026-09-01T02:00:00Z`,
		RunE: groupRunE,
	}
	cmd.AddCommand(newTariffsValidateCmd(a), newTariffsListCmd(a), newTariffsShowCmd(a), newTariffsCompareCmd(a), newTariffsExportCmd(a), newTariffsImportCmd(a), newTariffsNextCmd(a))
	return cmd
}

type validateOptions struct {
	paths  []string
	strict bool
}

func newTariffsValidateCmd(a *app) *cobra.Command {
	var opts validateOptions
	cmd := &cobra.Command{
		Use:   "validate [PATH...]",
		Short: "Report every problem of tariff files at once, with file:line",
		Long: `Validate reads tariff files (or every *.yaml and *.yml of a folder) and reports every
problem at once as file:line: message, the files taken together as one catalog. Without a
PATH it validates the catalog the other commands use: --tariffs (else the embedded
catalog) with each --price-list and --tariffs-overlay applied.

Exit 1 if any error is found. Warnings (such as a version boundary that is not on a whole
minute, a source without a kind, a version resting on one source or on secondary sources
only, a promotion in force whose stated end has passed, or a holiday calendar that stops being certain within 60
days: its last year ends, or a provisional year begins) are printed but exit 0, unless
--strict makes them findings too.`,
		Example: `  tokenfare tariffs validate
  tokenfare tariffs validate tariffs/catalog my-tariffs/deepseek.yaml
  tokenfare tariffs validate --tariffs-overlay my-tariffs/deepseek.yaml --strict
  tokenfare tariffs validate --price-list deepseek=cny`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.paths = args
			return runTariffsValidate(a, cmd.OutOrStdout(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.strict, "strict", false, "count warnings as findings (exit 1)")
	return cmd
}

func runTariffsValidate(a *app, out io.Writer, opts validateOptions) error {
	var cat *tariffs.Catalog
	var problems tariffs.Problems
	var files int
	if len(opts.paths) == 0 {
		// A path that cannot be read is bad usage, as with PATH arguments.
		for _, path := range append([]string{a.tariffs}, a.overlays...) {
			if path == "" {
				continue
			}
			if _, err := tariffs.Files(path); err != nil {
				return usageError(fmt.Errorf("%s: %w", path, err), "give tariff files or folders that hold *.yaml files")
			}
		}
		lists, err := a.priceLists()
		if err != nil {
			return err
		}
		cat, problems = tariffs.LoadLists(a.tariffs, lists, a.overlays...)
		if cat != nil {
			files = len(cat.Files)
		}
	} else {
		var err error
		if cat, problems, files, err = validatePaths(opts.paths); err != nil {
			return err
		}
	}
	if cat != nil {
		problems = append(problems, cat.CalendarEnds(a.now(), tariffs.CalendarNotice)...)
		problems = append(problems, cat.PromotionsEnded(a.now())...)
	}
	errs, warnings := len(problems.Errors()), len(problems)-len(problems.Errors())
	passed := errs == 0 && !(opts.strict && warnings > 0)
	if err := reports.WriteValidation(out, reports.Validation{Problems: problems, Files: files, Catalog: cat, Passed: passed}); err != nil {
		return err
	}
	if !passed {
		return findingsError(fmt.Errorf("%s in %d file(s)", countProblems(errs, warnings), filesOf(problems)))
	}
	return nil
}

// validatePaths parses the files the paths name and checks them together
// as one catalog; it returns how many files it read.
func validatePaths(paths []string) (*tariffs.Catalog, tariffs.Problems, int, error) {
	var providers []*tariffs.Provider
	var problems tariffs.Problems
	files := 0
	for _, path := range paths {
		names, err := tariffs.Files(path)
		if err != nil {
			return nil, nil, 0, usageError(fmt.Errorf("%s: %w", path, err), "give tariff files or folders that hold *.yaml files")
		}
		files += len(names)
		for _, name := range names {
			data, err := yamlin.ReadFile(name)
			if err != nil {
				return nil, nil, 0, usageError(fmt.Errorf("read tariffs %s: %w", name, unwrapPathError(err)), "")
			}
			p, ps := tariffs.Parse(name, data)
			problems = append(problems, ps...)
			if p != nil {
				providers = append(providers, p)
			}
		}
	}
	cat, ps := tariffs.New(providers)
	return cat, append(problems, ps...), files, nil
}

// countProblems says "2 error(s) and 1 warning(s)", leaving out a zero.
func countProblems(errs, warnings int) string {
	switch {
	case warnings == 0:
		return fmt.Sprintf("%d error(s)", errs)
	case errs == 0:
		return fmt.Sprintf("%d warning(s)", warnings)
	}
	return fmt.Sprintf("%d error(s) and %d warning(s)", errs, warnings)
}

// filesOf counts the files problems are found in.
func filesOf(ps tariffs.Problems) int {
	files := map[string]bool{}
	for _, p := range ps {
		files[p.File] = true
	}
	return len(files)
}

func newTariffsListCmd(a *app) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:     "list",
		Short:   "List the models of the catalog with their provider and versions",
		Example: "  tokenfare tariffs list\n  tokenfare tariffs list -o csv",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			format, err := parseOutput(output, reports.Table, reports.CSV, reports.JSON, reports.YAML)
			if err != nil {
				return err
			}
			cat, err := a.Catalog()
			if err != nil {
				return err
			}
			return reports.Models(cmd.OutOrStdout(), format, cat.Models(), a.now())
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "table", "output format: table, csv, json or yaml")
	completeOutput(cmd, reports.Table, reports.CSV, reports.JSON, reports.YAML)
	return cmd
}
