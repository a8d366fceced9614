package state

import (
	"fmt"
	"time"

	"github.com/tokenfare/tokenfare/tariffs"
)

// OffGrain is a tariff boundary that does not fall on the state's Grain:
// a version taking effect, or a period starting, inside a 15-minute slot.
// The calls of that slot on both sides of it are summed together, so the
// state cannot price them exactly.
type OffGrain struct {
	Model   string
	Version string // the version in force from At
	At      time.Time
}

func (o OffGrain) String() string {
	return fmt.Sprintf("model %s, version %s: a tariff boundary at %s is not on the state's 15-minute grain",
		o.Model, o.Version, o.At.Format(time.RFC3339Nano))
}

// OffGrains returns the boundaries of every model of cat between from and
// until that are not on the Grain, in order of model then instant: the
// changes of quote a cursor walks through (tariffs.Cursor), those a
// database push-down must not sum across (pricing.AggregateBoundaries).
// With tariffAt set, the models' quotes are those of the tariff in force
// then, as blend prices them.
func OffGrains(cat *tariffs.Catalog, from, until, tariffAt time.Time) []OffGrain {
	var out []OffGrain
	for _, m := range cat.Models() {
		c := m.Cursor()
		if !tariffAt.IsZero() {
			c = m.CursorAtTariffOf(tariffAt)
		}
		for t := from; t.Before(until); {
			q := c.At(t)
			if q.Until >= until.UnixNano() || q.Until <= t.UnixNano() {
				break
			}
			t = time.Unix(0, q.Until).UTC()
			if q.Until%int64(Grain) != 0 {
				name := ""
				if v := c.At(t).Version; v != nil {
					name = v.Name
				}
				out = append(out, OffGrain{Model: m.ID, Version: name, At: t})
			}
		}
	}
	return out
}

// Span returns the first and last slot the state holds calls in; both
// zero when it holds none. Each commit keeps them in the file, so that
// Span reads one record, not every key; a state written before they were
// kept is looked over whole.
func (s *Store) Span() (first, last time.Time, err error) {
	defer s.Recover(&err)
	var ok bool
	err = s.db.view(func(tx *txn) error {
		first, last, ok = storedSpan(tx)
		if ok {
			return nil
		}
		first, last, err = scanSpan(tx)
		return err
	})
	return first, last, err
}

// storedSpan returns the span a commit kept; ok false when none was.
func storedSpan(tx *txn) (first, last time.Time, ok bool) {
	return decodeSpan(tx.meta().Get(spanRecord))
}

func unixOrZero(sec int64) time.Time {
	if sec == 0 {
		return time.Time{}
	}
	return time.Unix(sec, 0).UTC()
}

// scanSpan finds the span over every key of the state.
func scanSpan(tx *txn) (first, last time.Time, err error) {
	err = tx.sums().ForEach(func(k, _ []byte) error {
		var key Key
		if err := decodeKey(k, &key); err != nil {
			return err
		}
		first, last = widen(first, last, key.Slot)
		return nil
	})
	return first, last, err
}

// widen returns the span first..last widened to hold slot.
func widen(first, last, slot time.Time) (time.Time, time.Time) {
	if first.IsZero() || slot.Before(first) {
		first = slot
	}
	if slot.After(last) {
		last = slot
	}
	return first, last
}

// putSpan keeps the span of the state once a commit's slots, from..to
// (both zero: none), are added: the stored one (or, in a state written
// before it was kept, the one found over every key) widened by them.
func putSpan(tx *txn, from, to time.Time) error {
	first, last, ok := storedSpan(tx)
	if !ok {
		var err error
		if first, last, err = scanSpan(tx); err != nil {
			return err
		}
	}
	if !from.IsZero() {
		first, last = widen(first, last, from)
		first, last = widen(first, last, to)
	}
	return tx.meta().Put(spanRecord, encodeSpan(first, last))
}

// CeilGrain returns t, or the start of the next slot when t is inside
// one: a window's ends moved onto the grain, where the sums split.
func CeilGrain(t time.Time) time.Time {
	if c := t.Truncate(Grain); !c.Equal(t) {
		return c.Add(Grain)
	}
	return t
}
