package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/spf13/cobra"

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
	cmd.AddCommand(newTariffsValidateCmd(a), newTariffsListCmd(a), newTariffsShowCmd(a), newTariffsCompareCmd(a))
	return cmd
}

func newTariffsValidateCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "validate [PATH...]",
		Short: "Report every problem of tariff files at once, with file:line",
		Long: `Validate reads tariff files (or every *.yaml of a folder) and reports every problem at
once as file:line: message. Without a PATH it validates the --tariffs folder, else the
embedded catalog. Exit 1 if any problem is found (warnings included), 0 otherwise.`,
		Example: `  tokenfare tariffs validate
  tokenfare tariffs validate tariffs/catalog my-tariffs/deepseek.yaml`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTariffsValidate(a, cmd.OutOrStdout(), args)
		},
	}
}

func runTariffsValidate(a *app, out io.Writer, paths []string) error {
	var providers []*tariffs.Provider
	var problems tariffs.Problems
	files := 0
	add := func(p *tariffs.Provider, ps tariffs.Problems) {
		files++
		problems = append(problems, ps...)
		if p != nil {
			providers = append(providers, p)
		}
	}
	if len(paths) == 0 {
		if a.tariffsDir != "" {
			paths = []string{a.tariffsDir}
		} else {
			cat, ps := tariffs.Embedded()
			problems = append(problems, ps...)
			if cat != nil {
				providers = cat.Providers
			}
			files = len(providers)
		}
	}
	for _, p := range paths {
		names, err := tariffFiles(p)
		if err != nil {
			return usageError(err, "give tariff files or folders that hold *.yaml files")
		}
		for _, name := range names {
			data, err := os.ReadFile(name)
			if err != nil {
				return usageError(err, "")
			}
			add(tariffs.Parse(name, data))
		}
	}
	if len(paths) > 0 {
		_, ps := tariffs.New(providers)
		problems = append(problems, ps...)
	}
	for _, p := range problems {
		fmt.Fprintln(out, p.Error())
	}
	if len(problems) > 0 {
		return findingsError(fmt.Errorf("%d problem(s) in %d file(s)", len(problems), files))
	}
	models, versions := 0, 0
	for _, p := range providers {
		models += len(p.Models)
		versions += len(p.Versions)
	}
	_, err := fmt.Fprintf(out, "ok: %d file(s), %d provider(s), %d model(s), %d version(s)\n", files, len(providers), models, versions)
	return err
}

// tariffFiles lists the tariff files a path names: the file itself, or the
// *.yaml and *.yml files of a folder.
func tariffFiles(path string) ([]string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("read tariffs %s: %w", path, unwrapPathError(err))
	}
	if !st.IsDir() {
		return []string{path}, nil
	}
	var out []string
	for _, pat := range []string{"*.yaml", "*.yml"} {
		m, _ := filepath.Glob(filepath.Join(path, pat))
		out = append(out, m...)
	}
	sort.Strings(out)
	if len(out) == 0 {
		return nil, fmt.Errorf("read tariffs %s: no *.yaml files in the folder", path)
	}
	return out, nil
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
