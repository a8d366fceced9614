package pricing

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestSlotCacheMatchesUncached checks the cached day and hour slots
// against working each out afresh, in zones with daylight saving (at 02:00,
// at midnight, by 30 minutes), odd offsets and none, over instants in time
// order (the cache mostly hits) and in random order (it mostly misses).
func TestSlotCacheMatchesUncached(t *testing.T) {
	zones := []string{"UTC", "Asia/Shanghai", "America/New_York", "Europe/London", "America/Havana",
		"America/Santiago", "Australia/Lord_Howe", "Asia/Kathmandu", "Pacific/Chatham"}
	from := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	const span = 366 * 86400
	rng := rand.New(rand.NewPCG(3, 5))
	for _, name := range zones {
		zone, err := time.LoadLocation(name)
		if err != nil {
			t.Fatal(err)
		}
		// In time order: steps of up to 20 minutes across the year, every
		// transition passed; then random instants.
		var instants []time.Time
		for u := from; u < from+span; u += rng.Int64N(1200) + 1 {
			instants = append(instants, time.Unix(u, rng.Int64N(1e9)))
		}
		for range 20000 {
			instants = append(instants, time.Unix(from+rng.Int64N(span), 0))
		}
		var day, hour slotCache
		for _, at := range instants {
			lt := at.In(zone)
			wantDay := time.Date(lt.Year(), lt.Month(), lt.Day(), 0, 0, 0, 0, zone).Unix()
			wantHour := at.Unix() - int64(lt.Minute()*60+lt.Second())
			if got := day.daySlot(at, zone); got != wantDay {
				t.Fatalf("%s: day of %s is %s, want %s", name, lt, time.Unix(got, 0).In(zone), time.Unix(wantDay, 0).In(zone))
			}
			if got := hour.hourSlot(at, zone); got != wantHour {
				t.Fatalf("%s: hour of %s is %s, want %s", name, lt, time.Unix(got, 0).In(zone), time.Unix(wantHour, 0).In(zone))
			}
		}
	}
}
