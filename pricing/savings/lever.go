package savings

import (
	"fmt"
	"strings"
	"time"
)

// Lever is one way of serving the same call for less.
type Lever uint8

// The levers, in the order they are shown and in which a tie for a call's
// best lever is settled.
const (
	Offpeak Lever = iota // the next instant of the version's cheapest period
	Batch                // the batch tier: results within 24 h
	Flex                 // the flex tier: slower, may be refused
	Host                 // the cheapest other host listing the model
	NumLevers
)

var leverNames = [NumLevers]string{"offpeak", "batch", "flex", "host"}

// String returns the lever's name as --lever spells it.
func (l Lever) String() string {
	if l < NumLevers {
		return leverNames[l]
	}
	return fmt.Sprintf("lever(%d)", uint8(l))
}

// AllLevers returns every lever, in order.
func AllLevers() []Lever { return []Lever{Offpeak, Batch, Flex, Host} }

// ParseLevers reads a comma-separated list of levers, e.g. "offpeak,host",
// in the order of the levers whatever the order written; "" is every lever.
func ParseLevers(s string) ([]Lever, error) {
	var set [NumLevers]bool
	any := false
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		l, ok := leverNamed(name)
		if !ok {
			return nil, fmt.Errorf("unknown lever %q (want any of %s)", name, strings.Join(leverNames[:], ", "))
		}
		if set[l] {
			return nil, fmt.Errorf("lever %q is given twice", name)
		}
		set[l], any = true, true
	}
	if !any {
		return AllLevers(), nil
	}
	var out []Lever
	for l, on := range set {
		if on {
			out = append(out, Lever(l))
		}
	}
	return out, nil
}

// leverNamed returns the lever called name.
func leverNamed(name string) (Lever, bool) {
	for i, n := range leverNames {
		if n == name {
			return Lever(i), true
		}
	}
	return 0, false
}

// Delay is a bucket of the delay an off-peak call needs.
type Delay uint8

// The delay buckets: each includes its lower bound and excludes its upper.
const (
	Under1h    Delay = iota // [0, 1 h)
	From1To3h               // [1 h, 3 h)
	From3To12h              // [3 h, 12 h)
	Over12h                 // 12 h or more
	NumDelays
)

var delayNames = [NumDelays]string{"under_1h", "1h_to_3h", "3h_to_12h", "12h_or_more"}

// String returns the bucket's name as JSON spells it.
func (d Delay) String() string { return delayNames[d] }

// DelayOf returns the bucket of delay d.
func DelayOf(d time.Duration) Delay {
	switch {
	case d < time.Hour:
		return Under1h
	case d < 3*time.Hour:
		return From1To3h
	case d < 12*time.Hour:
		return From3To12h
	}
	return Over12h
}
