package cli

import (
	"os"

	"github.com/tokenfare/tokenfare/internal/spillfs"
	"github.com/tokenfare/tokenfare/pricing"
)

// tempRuns makes the store of the runs of an engine that spills its
// groups past its budget (pricing.Options.Runs): a folder of its own
// under the system's temporary folder, made at the engine's first spill.
func tempRuns() (pricing.RunStore, error) {
	f, err := spillfs.New(os.TempDir())
	if err != nil {
		return nil, err
	}
	return f, nil
}
