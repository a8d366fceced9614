package pricing

import "time"

// slotCache remembers the day or hour slot of the last billing instant
// grouped, with the instants that share it: calls come mostly in time
// order, and working out a local date costs more than comparing two
// integers. The range lies within one period of the zone's offset, so
// every instant in it has the same local day (or hour) as the one that
// filled the cache: the result is exactly the uncached one.
type slotCache struct {
	lo, hi int64 // Unix seconds [lo, hi) that share slot; empty when lo >= hi
	slot   int64
}

// daySlot returns the start (Unix seconds) of the calendar day of at in
// zone, as time.Date gives it for midnight of that day.
func (c *slotCache) daySlot(at time.Time, zone *time.Location) int64 {
	u := at.Unix()
	if c.lo <= u && u < c.hi {
		return c.slot
	}
	lt := at.In(zone)
	y, m, d := lt.Date()
	c.slot = time.Date(y, m, d, 0, 0, 0, 0, zone).Unix()
	c.within(lt, 86400)
	return c.slot
}

// hourSlot returns the start (Unix seconds) of the hour of at in zone,
// from the instant itself rather than time.Date: on a day the clocks go
// back, the repeated local hour is two different hours.
func (c *slotCache) hourSlot(at time.Time, zone *time.Location) int64 {
	u := at.Unix()
	if c.lo <= u && u < c.hi {
		return c.slot
	}
	lt := at.In(zone)
	c.slot = u - int64(lt.Minute()*60+lt.Second())
	c.within(lt, 3600)
	return c.slot
}

// within sets the cached range to the instants of lt's local day (span
// 86400) or hour (3600) that share lt's zone offset.
func (c *slotCache) within(lt time.Time, span int64) {
	_, off := lt.Zone()
	local := lt.Unix() + int64(off)
	start := local - mod(local, span) - int64(off)
	c.lo, c.hi = start, start+span
	from, until := lt.ZoneBounds()
	if !from.IsZero() && from.Unix() > c.lo {
		c.lo = from.Unix()
	}
	if !until.IsZero() && until.Unix() < c.hi {
		c.hi = until.Unix()
	}
}

// mod is a modulo that is never negative.
func mod(a, b int64) int64 {
	if m := a % b; m < 0 {
		return m + b
	}
	return a % b
}
