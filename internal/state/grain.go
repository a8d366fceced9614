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
// zero when it holds none.
func (s *Store) Span() (first, last time.Time, err error) {
	err = s.Each(func(k *Key, _ *Sums) error {
		if first.IsZero() || k.Slot.Before(first) {
			first = k.Slot
		}
		if k.Slot.After(last) {
			last = k.Slot
		}
		return nil
	})
	return first, last, err
}
