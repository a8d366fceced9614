package serve

import (
	"log/slog"
	"time"

	"github.com/tokenfare/tokenfare/internal/state"
	"github.com/tokenfare/tokenfare/tariffs"
)

// offGrainLog logs the tariff boundaries that do not fall on the state's
// grain, each once: serve prices those slots at the period in force at
// their start. The first refresh at a catalog looks over the state's
// whole span, the next ones over the slots past it only.
type offGrainLog struct {
	logged map[state.OffGrain]bool
	cat    *tariffs.Catalog // the catalog looked at
	until  time.Time        // the end of the span looked over so far
}

func (l *offGrainLog) log(log *slog.Logger, store *state.Store, cat *tariffs.Catalog, sources []state.Source) {
	if cat != l.cat {
		l.cat, l.until = cat, time.Time{} // a catalog loaded again: its boundaries over the whole state
	}
	from := l.until
	if from.IsZero() {
		first, _, err := store.Span()
		if err != nil || first.IsZero() {
			return
		}
		from, l.logged = first, map[state.OffGrain]bool{}
	}
	until := from
	for _, s := range sources {
		if end := s.Watermark.Truncate(state.Grain).Add(state.Grain); end.After(until) {
			until = end
		}
	}
	for _, o := range state.OffGrains(cat, from, until, time.Time{}) {
		if !l.logged[o] {
			l.logged[o] = true
			log.Warn("tariff boundary off the state's grain: its slot is priced at the period in force at its start, not exactly",
				"model", o.Model, "version", o.Version, "at", o.At)
		}
	}
	l.until = until
}
