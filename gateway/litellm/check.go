package litellm

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"
	"github.com/tokenfare/tokenfare/gateway"
	"github.com/tokenfare/tokenfare/internal/numtext"
	"github.com/tokenfare/tokenfare/tariffs"
	"gopkg.in/yaml.v3"
)

// CheckOptions are the check's inputs and thresholds.
type CheckOptions struct {
	Catalog *tariffs.Catalog
	// At is the instant whose tariff versions prices are held against.
	At time.Time
	// MaxCooldown and MinAllowedFails bound the router's cooldown_time and
	// allowed_fails for a model group with one deployment and no fallback.
	MaxCooldown     time.Duration
	MinAllowedFails int
	// Strict makes entries of models with no tariff findings, not warnings.
	Strict bool
	// MinRateLimitRetries is the fewest retries a model group gives a 429.
	MinRateLimitRetries int
	// Private are the glob patterns (path.Match) of the private model
	// groups; none makes no group private.
	Private []string
	// PrivateDomains are the DNS domains whose hosts count as private
	// addresses, besides loopback, RFC 1918, link-local and ULA ones.
	PrivateDomains []string
}

// Rule names, as findings carry them.
const (
	RuleUntariffed = "untariffed"
	// RuleUntariffedHost: a deployment served by a host no tariff prices.
	RuleUntariffedHost = "untariffed-host"
	RulePriceFormat    = "price-format"
	RulePriceBounds    = "price-bounds"
	RuleZeroPrice      = "zero-price"
	RuleNoCustom       = "no-custom-price"
	RuleInconsistent   = "inconsistent-price"
	RuleOffPeak        = "off-peak-block"
	RuleOffPeakDates   = "off-peak-dates"
	RuleHealthCheck    = "health-check"
	RuleCooldown       = "cooldown"
	RuleRateLimit      = "rate-limit-retry"
	RulePrivateFall    = "private-fallback"
	RulePrivateAlias   = "private-alias"
	RulePrivateAddr    = "private-address"
)

// checker gathers the findings of one config.
type checker struct {
	c    *Config
	opts CheckOptions
	out  []gateway.Finding
}

func (k *checker) add(rule string, e *Entry, line int, field, value, bound, msg string) {
	sev := gateway.Problem
	if (rule == RuleUntariffed || rule == RuleUntariffedHost) && !k.opts.Strict || rule == RuleOffPeakDates {
		sev = gateway.Warning
	}
	name := ""
	if e != nil {
		name = e.ModelName
	}
	k.out = append(k.out, gateway.Finding{Rule: rule, Severity: sev, ModelName: name, File: k.c.File, Line: line,
		Field: field, Value: value, Bound: bound, Message: msg})
}

// Check runs every rule on the config and returns the findings in file
// order. The rules:
//
//   - untariffed: an entry whose model no tariff of its host knows (a
//     warning unless Strict), or that no tariff version in force at At
//     prices;
//   - untariffed-host: an entry served by a host (Entry.Host) no tariff
//     prices (a warning unless Strict): none of the price rules below
//     applies to it, for no other host's price is its own;
//   - price-format: a price LiteLLM would read as a string, or not a number;
//   - price-bounds: a price outside [lowest, highest] of its usage type in
//     the version in force at At (all periods and tiers);
//   - zero-price: a price of 0 on a metered model;
//   - no-custom-price: an entry of a time-of-use model with no price of its
//     own (LiteLLM's built-in table then decides);
//   - inconsistent-price: entries of one tariff model with different values
//     for one price key;
//   - off-peak-block: an off_peak_pricing block that does not match the
//     tariff in force (windows, weekday zone, holiday dates, rates), sits
//     in litellm_params (ignored there) or is on a flat-priced model;
//   - off-peak-dates (a warning): a block whose override_dates run out,
//     or whose tariff's calendar stops being certain, within
//     tariffs.CalendarNotice of At (or before it);
//   - health-check: background health checks on with a metered deployment
//     not opted out (every probe is a paid call);
//   - cooldown: cooldown_time above MaxCooldown or allowed_fails below
//     MinAllowedFails while a model group has one deployment and no
//     fallback;
//   - rate-limit-retry: a model group whose 429s get fewer than
//     MinRateLimitRetries retries;
//   - private-fallback: a fallback of any kind, direct or through other
//     groups, from a private group to a group outside Private;
//   - private-alias: an alias giving a private group a public name, or a
//     private name a public group;
//   - private-address: a deployment of a private group without an api_base
//     on a private address or a host in PrivateDomains.
//
// Router settings are read wherever LiteLLM reads them (see
// routerSetting), so moving a key between sections changes a finding only
// when it changes what LiteLLM does.
func (c *Config) Check(opts CheckOptions) []gateway.Finding {
	k := &checker{c: c, opts: opts}
	models := make([]*tariffs.Model, len(c.Entries))
	for i, e := range c.Entries {
		m, host, ok := e.Resolve(opts.Catalog)
		if !ok && host != "" && !opts.Catalog.PricesHost(host) {
			k.add(RuleUntariffedHost, e, e.Line, "litellm_params.model", e.Model, "a host the tariff catalog prices",
				fmt.Sprintf("no tariff prices host %s: its calls stay unpriced, and no first party's price is held against it (a tariff file with hosts: [%s] prices them)", host, host))
			continue
		}
		if !ok {
			k.add(RuleUntariffed, e, e.Line, "litellm_params.model", e.Model, "a model of the tariff catalog",
				fmt.Sprintf("no tariff model is known by %s", strings.Join(quoteAll(e.Names()), ", ")))
			continue
		}
		if q := m.At(opts.At); q.Status != tariffs.Priced {
			k.add(RuleUntariffed, e, e.Line, "litellm_params.model", e.Model, "a model priced at "+opts.At.UTC().Format(time.RFC3339),
				fmt.Sprintf("%s is %s at %s", m.ID, q.Status, opts.At.UTC().Format(time.RFC3339)))
			continue
		}
		models[i] = m
		k.prices(e, m)
		k.offPeak(e, m)
	}
	k.consistency(models)
	k.healthChecks(models)
	k.cooldowns()
	k.rateLimits()
	k.perimeter()
	gateway.Sort(k.out)
	return k.out
}

// failuresTake is "1 failure takes" or "n failures take".
func failuresTake(n int) string {
	if n == 1 {
		return "1 failure takes"
	}
	return fmt.Sprintf("%d failures take", n)
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	return out
}

// bounds returns the lowest and highest price of u in the version of m in
// force at t, over every period and tier.
func bounds(m *tariffs.Model, t time.Time, u tariffs.Usage) (low, high decimal.Decimal) {
	q := m.At(t)
	mp := q.Prices
	first := true
	each := func(rs []tariffs.Rates) {
		for i := range rs {
			p := rs[i].Price(u)
			if u == tariffs.Reasoning && !rs[i].Listed(u) {
				p = rs[i].Price(tariffs.Output)
			}
			if first {
				low, high, first = p, p, false
			}
			low, high = decimal.Min(low, p), decimal.Max(high, p)
		}
	}
	each(mp.Periods)
	for _, t := range mp.Tiers {
		each(t.Periods)
	}
	return low, high
}

// prices checks each price an entry carries.
func (k *checker) prices(e *Entry, m *tariffs.Model) {
	custom := false
	for _, sec := range []struct {
		name string
		m    *yaml.Node
	}{{"litellm_params", e.params}, {"model_info", e.info}} {
		for _, f := range Fields {
			_, v := lookup(sec.m, f.Key)
			if v == nil {
				continue
			}
			custom = true
			field := sec.name + "." + f.Key
			p, err := PerMillion(v)
			if errors.Is(err, numtext.ErrTooLong) {
				k.add(RulePriceFormat, e, v.Line, field, fmt.Sprintf("%.40s... (%d characters)", v.Value, len(v.Value)), "a number with a dot, e.g. 3.0e-7",
					"the number is too long: "+numtext.ErrTooLong.Error())
				continue
			}
			if errors.Is(err, numtext.ErrOutOfRange) {
				k.add(RulePriceFormat, e, v.Line, field, v.Value, "a number with a dot, e.g. 3.0e-7",
					"the number is out of range: "+numtext.ErrOutOfRange.Error())
				continue
			}
			if err != nil || !ReadsAsNumber(v) {
				k.add(RulePriceFormat, e, v.Line, field, v.Value, "a number with a dot, e.g. 3.0e-7",
					"LiteLLM (PyYAML) reads this value as a string, not a number")
				continue
			}
			low, high := bounds(m, k.opts.At, f.Usage)
			bound := FormatPerToken(low) + " .. " + FormatPerToken(high)
			switch {
			case p.IsZero() && high.IsPositive():
				k.add(RuleZeroPrice, e, v.Line, field, v.Value, bound, fmt.Sprintf("price 0 on %s, a metered model", m.ID))
			case p.LessThan(low) || p.GreaterThan(high):
				k.add(RulePriceBounds, e, v.Line, field, v.Value, bound,
					fmt.Sprintf("%s outside the %s prices of %s in version %s", f.Usage, strings.Join(m.At(k.opts.At).Version.Periods, "/"), m.ID, m.At(k.opts.At).Version.Name))
			}
		}
	}
	if _, _, _, tou := TimeOfUse(m, k.opts.At); tou && !custom {
		k.add(RuleNoCustom, e, e.Line, "model_info.input_cost_per_token", "", "a custom price",
			fmt.Sprintf("%s is priced by time of day; without a custom price LiteLLM's built-in table decides", m.ID))
	}
}

// effective returns the value of key an entry carries (model_info first,
// as LiteLLM registers it) and its node.
func (e *Entry) effective(key string) *yaml.Node {
	if _, v := lookup(e.info, key); v != nil {
		return v
	}
	_, v := lookup(e.params, key)
	return v
}

// consistency checks that entries of one tariff model agree on each price.
func (k *checker) consistency(models []*tariffs.Model) {
	type seen struct {
		e *Entry
		v *yaml.Node
		p decimal.Decimal
	}
	first := map[*tariffs.Model]map[string]seen{}
	for i, e := range k.c.Entries {
		m := models[i]
		if m == nil {
			continue
		}
		if first[m] == nil {
			first[m] = map[string]seen{}
		}
		for _, f := range Fields {
			v := e.effective(f.Key)
			if v == nil {
				continue
			}
			p, err := PerMillion(v)
			if err != nil {
				continue
			}
			s, ok := first[m][f.Key]
			if !ok {
				first[m][f.Key] = seen{e, v, p}
				continue
			}
			if !s.p.Equal(p) {
				k.add(RuleInconsistent, e, v.Line, f.Key, v.Value, fmt.Sprintf("%s as in %q at line %d", s.v.Value, s.e.ModelName, s.v.Line),
					fmt.Sprintf("entries of %s carry different %s", m.ID, f.Key))
			}
		}
	}
}

// offPeak checks an entry's off_peak_pricing block against the tariff.
func (k *checker) offPeak(e *Entry, m *tariffs.Model) {
	if pk, _ := lookup(e.params, "off_peak_pricing"); pk != nil {
		k.add(RuleOffPeak, e, pk.Line, "litellm_params.off_peak_pricing", "", "model_info.off_peak_pricing",
			"LiteLLM honours off_peak_pricing only under model_info; here it is ignored")
	}
	key, v := lookup(e.info, "off_peak_pricing")
	if key == nil {
		return
	}
	const field = "model_info.off_peak_pricing"
	want, dear, err := OffPeakFromTariff(m, k.opts.At)
	if err != nil {
		k.add(RuleOffPeak, e, key.Line, field, "", "no block", err.Error())
		return
	}
	got, problems := ReadOffPeak(v)
	for _, p := range problems {
		k.add(RuleOffPeak, e, key.Line, field, "", "", p+" (LiteLLM never matches it)")
	}
	if msg := datesRunOut(got, m, k.opts.At); msg != "" {
		k.add(RuleOffPeakDates, e, key.Line, field+".override_dates", "", "", msg)
	}
	if d := got.Diff(want); d != "" {
		k.add(RuleOffPeak, e, key.Line, field, "", "the tariff's windows", d)
	}
	var std tariffs.Rates
	for _, f := range Fields {
		if n := e.effective(f.Key); n != nil {
			if p, err := PerMillion(n); err == nil {
				std.Set(f.Usage, p)
			}
		} else {
			std.Set(f.Usage, dear.Price(f.Usage))
		}
	}
	if f, g, w := got.RatesDiff(&want.Rates, &std); f != "" {
		line := key.Line
		if kk, _ := lookup(v, f); kk != nil {
			line = kk.Line
		}
		k.add(RuleOffPeak, e, line, field+"."+f, g, w, "off-peak rate differs from the tariff's")
	}
}

// healthChecks flags metered deployments probed in the background.
func (k *checker) healthChecks(models []*tariffs.Model) {
	gs := k.c.section("general_settings")
	hk, hv := lookup(gs, "background_health_checks")
	if hk == nil || hv.Value != "true" && hv.Value != "True" {
		return
	}
	for i, e := range k.c.Entries {
		why, metered := k.metered(e, models[i])
		if !metered {
			continue
		}
		_, v := lookup(e.info, "disable_background_health_check")
		if v != nil && (v.Value == "true" || v.Value == "True") {
			continue
		}
		val, line := "", e.Line
		if v != nil {
			val, line = v.Value, v.Line
		}
		k.add(RuleHealthCheck, e, line, "model_info.disable_background_health_check", val, "true",
			fmt.Sprintf("background_health_checks is on (line %d) and each probe of this metered deployment is a paid call%s", hk.Line, why))
	}
}

// meteredKeys are LiteLLM's prices whose being above 0 says a deployment
// is billed by use: per token, per second, per request.
var meteredKeys = []string{"input_cost_per_token", "output_cost_per_token", "input_cost_per_second", "output_cost_per_second", "input_cost_per_request"}

// metered reports whether entry e is billed by use: a model a tariff
// prices (m), else a model the catalog does not know that the config
// itself prices above 0 (a provider of its own), or whose host a tariff
// prices. why says so for the last two (" (...)"), "" for the first.
func (k *checker) metered(e *Entry, m *tariffs.Model) (why string, metered bool) {
	if m != nil {
		return "", true
	}
	for _, key := range meteredKeys {
		if v := e.effective(key); v != nil {
			if p, err := tariffs.ScalarDecimal(v); err == nil && p.IsPositive() {
				return fmt.Sprintf(" (the config prices it: %s %s, line %d)", key, v.Value, v.Line), true
			}
		}
	}
	if _, host, _ := e.Resolve(k.opts.Catalog); host != "" && k.opts.Catalog.PricesHost(host) {
		return fmt.Sprintf(" (host %s bills by use)", host), true
	}
	return "", false
}

// cooldowns flags router settings that take a lone deployment out. The
// settings are read where LiteLLM reads them: cooldown_time from the
// deployment (see cooldownTimes), else router_settings; allowed_fails from
// router_settings, else litellm_settings; a group has a fallback when the
// fallbacks (or default_fallbacks) the Router reads name it.
func (k *checker) cooldowns() {
	groups, first := k.c.groups()
	covered := map[string]bool{}
	for _, e := range k.c.fallbackEdges() {
		if e.key == "fallbacks" || e.key == "default_fallbacks" {
			covered[e.from] = true
		}
	}
	fails := k.c.routerSetting("allowed_fails")
	for _, e := range first {
		if len(groups[e.ModelName]) != 1 || covered[e.ModelName] || covered["*"] {
			continue
		}
		for _, c := range k.c.cooldownTimes(e) {
			if s, err := strconv.ParseFloat(c.val.Value, 64); err == nil && time.Duration(s*float64(time.Second)) > k.opts.MaxCooldown {
				k.add(RuleCooldown, e, c.val.Line, c.field(), c.val.Value, "<= "+strconv.FormatFloat(k.opts.MaxCooldown.Seconds(), 'f', -1, 64),
					fmt.Sprintf("group %q has one deployment and no fallback: a cooldown answers \"No deployments available\" for %ss", e.ModelName, c.val.Value))
			}
		}
		if n, ok := fails.int(); ok && n < k.opts.MinAllowedFails {
			k.add(RuleCooldown, e, fails.val.Line, fails.field(), fails.val.Value, ">= "+strconv.Itoa(k.opts.MinAllowedFails),
				fmt.Sprintf("group %q has one deployment and no fallback: %s the whole group out", e.ModelName, failuresTake(n)))
		}
	}
}
