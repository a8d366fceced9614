package litellm

import (
	"strconv"
	"time"
)

// Group is one model group of a config: the public name and the
// deployments that serve it.
type Group struct {
	Name        string
	Deployments int
	Line        int // the line of its first deployment
	// Cooling: the Router rests a failing deployment of the group
	// (router_settings.disable_cooldowns is not true).
	Cooling bool
}

// Groups returns the config's model groups in file order.
func (c *Config) Groups() []Group {
	groups, first := c.groups()
	off := c.routerSetting("disable_cooldowns")
	cooling := !off.set() || off.val.Value != "true"
	out := make([]Group, 0, len(first))
	for _, e := range first {
		out = append(out, Group{Name: e.ModelName, Deployments: len(groups[e.ModelName]), Line: e.Line, Cooling: cooling})
	}
	return out
}

// CooldownTime returns the Router's cooldown_time, when the config sets
// it to a number of seconds.
func (c *Config) CooldownTime() (time.Duration, bool) {
	s := c.routerSetting("cooldown_time")
	if !s.set() {
		return 0, false
	}
	secs, err := strconv.ParseFloat(s.val.Value, 64) // a duration, not money
	if err != nil || secs <= 0 || secs > 86400 {
		return 0, false
	}
	return time.Duration(secs * float64(time.Second)), true
}

// AllowedFails returns allowed_fails as the Router reads it (from
// router_settings, else litellm_settings), when the config sets it to an
// integer.
func (c *Config) AllowedFails() (int, bool) {
	return c.routerSetting("allowed_fails").int()
}
