package serve

import (
	"context"
	"log/slog"
	"time"

	"github.com/tokenfare/tokenfare/ledger/usagequeue"
)

// collectEvery pops the usage queue every Config.QueueEvery until ctx
// ends.
func (d *Daemon) collectEvery(ctx context.Context) {
	for {
		collect(ctx, d.cfg.Log, d.cfg.Queue)
		select {
		case <-ctx.Done():
			return
		case <-time.After(d.cfg.QueueEvery):
		}
	}
}

// collect pops the usage queue into its file, logging what it wrote.
func collect(ctx context.Context, log *slog.Logger, c *usagequeue.Collector) {
	n, err := c.Collect(ctx)
	if n > 0 {
		log.Info("collected", "records", n, "file", c.File)
	}
	if err != nil && ctx.Err() == nil {
		log.Error("collect", "error", err.Error(), "written", n)
	}
}
