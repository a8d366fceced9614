package litellm

import (
	"fmt"
	"strconv"

	"gopkg.in/yaml.v3"
)

// defaultRetries is the Router's num_retries when no section sets it
// (the OpenAI client's DEFAULT_MAX_RETRIES).
const defaultRetries = 2

// rateLimitRetries returns how many times the Router retries a 429 from
// deployment e under policy p (the group's model_group_retry_policy
// entry, else retry_policy), and the setting that decides it; ok is false
// when nothing is set and the default (2) applies. The policy's
// RateLimitErrorRetries decides first, then its DefaultRetries (newer
// LiteLLM), then the deployment's num_retries, then the Router's.
func rateLimitRetries(p setting, global setting, e *Entry) (n int, from setting, ok bool) {
	if p.set() && p.val.Kind == yaml.MappingNode {
		for _, key := range []string{"RateLimitErrorRetries", "DefaultRetries"} {
			if k, v := lookup(p.val, key); k != nil && v.Tag != "!!null" {
				s := setting{section: p.field(), key: k, val: v}
				n, ok := s.int()
				return n, s, ok
			}
		}
	}
	for _, s := range []setting{e.deploymentSetting("num_retries"), global} {
		if s.set() {
			n, ok := s.int()
			return n, s, ok
		}
	}
	return defaultRetries, setting{}, false
}

// rateLimits flags model groups whose rate-limit errors are retried fewer
// than MinRateLimitRetries times: a 429 then fails the request (or sends
// it to a fallback at another price) instead of waiting out the
// provider's window. One finding per group and deciding value.
func (k *checker) rateLimits() {
	groups, first := k.c.groups()
	global := k.c.routerSetting("num_retries")
	policy := k.c.routerSetting("retry_policy")
	perGroup := k.c.routerSetting("model_group_retry_policy")
	for _, f := range first {
		p := policy
		if gk, gv := lookup(perGroup.val, f.ModelName); perGroup.set() && gk != nil {
			p = setting{section: perGroup.field(), key: gk, val: gv}
		}
		seen := map[*yaml.Node]bool{}
		for _, e := range groups[f.ModelName] {
			n, from, ok := rateLimitRetries(p, global, e)
			if !ok || n >= k.opts.MinRateLimitRetries || seen[from.val] {
				continue
			}
			seen[from.val] = true
			why := fmt.Sprintf("%s is %d", from.key.Value, n)
			if from.key.Value == "num_retries" {
				why += " and no retry_policy sets RateLimitErrorRetries"
			}
			k.add(RuleRateLimit, e, from.val.Line, from.field(), from.val.Value, ">= "+strconv.Itoa(k.opts.MinRateLimitRetries),
				fmt.Sprintf("group %q retries a 429 %d time(s) (%s): a rate limit fails the request instead of being retried after a pause", e.ModelName, n, why))
		}
	}
}
