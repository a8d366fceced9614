package serve

import (
	"context"
	"errors"
	"log/slog"

	"github.com/tokenfare/tokenfare/internal/metrics"
	"github.com/tokenfare/tokenfare/internal/state"
	"github.com/tokenfare/tokenfare/tariffs"
)

// refresh reads every feed past its watermark, prices at cat and updates
// the metrics; it logs what it read and reports whether all went well.
func (d *Daemon) refresh(ctx context.Context, col *metrics.Collector, cat *tariffs.Catalog) bool {
	log := d.cfg.Log
	sources, err := d.cfg.Refresh(ctx, cat)
	defer d.memory.after(sources)
	logRefreshed(log, sources)
	d.offGrain.log(log, d.cfg.Store, cat, sources)
	if ctx.Err() != nil {
		return false
	}
	if err != nil {
		// The feeds that were read are committed: their figures are
		// published all the same.
		log.Error("refresh", "error", err.Error())
	}
	if uerr := d.update(ctx, col, cat); errors.Is(uerr, metrics.ErrNoDrift) {
		log.Warn("metrics: the configured prices have no series", "error", uerr.Error())
	} else if uerr != nil {
		log.Error("metrics", "error", uerr.Error())
		return false
	}
	return err == nil
}

// update makes col's figures of the state at cat, with the LiteLLM
// config read anew when there is one.
func (d *Daemon) update(ctx context.Context, col *metrics.Collector, cat *tariffs.Catalog) error {
	var gw *metrics.GatewayConfig
	if d.cfg.GatewayConfig != nil {
		var err error
		if gw, err = d.cfg.GatewayConfig(ctx); err != nil {
			return err
		}
	}
	return col.Update(d.cfg.Store, cat, d.cfg.Now(), gw)
}

// reloadCatalog reads the catalog again and returns it, or, when it has
// errors, logs them (each with its file and line) and returns old.
func (d *Daemon) reloadCatalog(old *tariffs.Catalog, why string) *tariffs.Catalog {
	log := d.cfg.Log
	cat, ps, err := d.cfg.LoadCatalog()
	if err != nil {
		log.Error("tariffs not reloaded: the catalog in use is kept", "why", why, "error", err.Error())
		return old
	}
	for _, p := range ps {
		log.Warn("tariffs", "warning", p.Error())
	}
	log.Info("tariffs reloaded", "why", why)
	return cat
}

// logRefreshed logs what a refresh read of each source, and each file it
// could not read.
func logRefreshed(log *slog.Logger, sources []state.Source) {
	for _, s := range sources {
		log.Info("refreshed", "source", s.Name, "watermark", s.Watermark, "read", s.Rows.Read, "priced", s.Rows.Priced, "late", s.Late)
		for _, u := range s.Unread {
			log.Warn("calls not read: the file is tried again at the next refresh", "source", s.Name, "file", u.Path, "error", u.Err.Error())
		}
	}
}
