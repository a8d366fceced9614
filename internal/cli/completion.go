package cli

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/reports"
)

// completeWith offers fixed values for a flag in shell completion.
func completeWith(cmd *cobra.Command, flag string, values ...string) {
	cmd.RegisterFlagCompletionFunc(flag, cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp))
}

// completeOutput offers the output formats a command writes.
func completeOutput(cmd *cobra.Command, offered ...reports.Format) {
	names := make([]string, len(offered))
	for i, f := range offered {
		names[i] = f.String()
	}
	completeWith(cmd, "output", names...)
}

// completeSource offers the values of the flags every command that reads
// calls shares.
func completeSource(cmd *cobra.Command) {
	completeWith(cmd, "billing-time", "start", "first_token", "end")
}

// completeDims completes the last element of a comma-separated --by list.
func completeDims(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	done := ""
	if i := strings.LastIndexByte(toComplete, ','); i >= 0 {
		done = toComplete[:i+1]
	}
	var out []string
	for _, d := range pricing.AllDims() {
		out = append(out, done+d.String())
	}
	return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
}

// completeModels offers the tariff model ids of the catalog.
func completeModels(a *app) cobra.CompletionFunc {
	return func(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
		cat, err := a.Catalog()
		if err != nil || len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var ids []string
		for _, m := range cat.Models() {
			ids = append(ids, m.ID)
		}
		return ids, cobra.ShellCompDirectiveNoFileComp
	}
}
