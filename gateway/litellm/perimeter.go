package litellm

import (
	"fmt"
	"net/netip"
	"net/url"
	"path"
	"strings"
)

// isPrivate reports whether a model group name matches one of the
// private patterns.
func (k *checker) isPrivate(group string) bool {
	for _, p := range k.opts.Private {
		if matchGroup(p, group) {
			return true
		}
	}
	return false
}

// matchGroup reports whether a model group name matches a pattern of
// --private. Patterns are path.Match globs, except that * and ? also match
// "/": a model group name is not a path, and "private/*" must hold
// "private/team/llama" too, or the perimeter would leave it out. A
// malformed pattern matches nothing.
func matchGroup(pattern, group string) bool {
	const sep = "\x00" // not special to path.Match, and in no model name
	ok, _ := path.Match(strings.ReplaceAll(pattern, "/", sep), strings.ReplaceAll(group, "/", sep))
	return ok
}

// perimeter runs the three rules of the private perimeter.
func (k *checker) perimeter() {
	if len(k.opts.Private) == 0 {
		return
	}
	k.privateFallbacks()
	k.privateAliases()
	k.privateAddresses()
}

// privateFallbacks flags every fallback, of any kind and at any depth,
// that takes a request of a private group to a group outside the
// perimeter. LiteLLM falls back again from a fallback group, so a chain
// private/a → private/b → public leaves in its second hop. A fallback
// target named in model_group_alias is the group the alias names. A
// public group falling back into a private one is fine.
func (k *checker) privateFallbacks() {
	edges := k.c.fallbackEdges()
	router := map[string]string{}
	for _, a := range k.c.aliases() {
		if a.field == "router_settings.model_group_alias" {
			router[a.name] = a.group
		}
	}
	resolve := func(g string) string {
		if r, ok := router[g]; ok {
			return r
		}
		return g
	}
	groups, first := k.c.groups()
	for _, f := range first {
		if !k.isPrivate(f.ModelName) {
			continue
		}
		via := map[string]string{f.ModelName: ""} // group reached → the group it was reached from
		queue := []string{f.ModelName}
		reported := map[int]bool{} // edges already reported, by index
		for len(queue) > 0 {
			cur := queue[0]
			queue = queue[1:]
			for i, e := range edges {
				if e.from != cur && e.from != "*" {
					continue
				}
				to := resolve(e.to)
				if k.isPrivate(to) {
					if _, ok := via[to]; !ok {
						via[to] = cur
						queue = append(queue, to)
					}
					continue
				}
				if reported[i] {
					continue
				}
				reported[i] = true
				k.add(RulePrivateFall, groups[f.ModelName][0], e.line, e.field, e.to, "a group matching "+strings.Join(k.opts.Private, " or "),
					fmt.Sprintf("private group %q %s %q, outside the private perimeter: a failed private request is sent to it", f.ModelName, chain(via, cur), to))
			}
		}
	}
}

// chain describes the path to a leaving fallback from group cur:
// "falls back to" when cur is where the path starts, else "reaches,
// through "b" then "c", a fallback to".
func chain(via map[string]string, cur string) string {
	var hops []string
	for g := cur; via[g] != ""; g = via[g] {
		hops = append([]string{fmt.Sprintf("%q", g)}, hops...)
	}
	if len(hops) == 0 {
		return "falls back to"
	}
	return "reaches, through " + strings.Join(hops, " then ") + ", a fallback to"
}

// privateAliases flags an alias from a public name to a private group
// (the private deployments then answer to a name outside the pattern that
// keys, teams and budgets are scoped by) and from a private name to a
// public group (a private request leaves).
func (k *checker) privateAliases() {
	_, first := k.c.groups()
	entry := map[string]*Entry{}
	for _, e := range first {
		entry[e.ModelName] = e
	}
	for _, a := range k.c.aliases() {
		name, group := k.isPrivate(a.name), k.isPrivate(a.group)
		if name == group {
			continue
		}
		e := entry[a.group]
		if e == nil {
			e = &Entry{ModelName: a.group, Line: a.line}
		}
		msg := fmt.Sprintf("public name %q routes to private group %q: the private deployments answer to a name outside the private perimeter", a.name, a.group)
		if name {
			msg = fmt.Sprintf("private name %q routes to public group %q: a private request leaves the perimeter", a.name, a.group)
		}
		k.add(RulePrivateAlias, e, a.line, a.field+"."+a.name, a.group, "both names inside or both outside "+strings.Join(k.opts.Private, " or "), msg)
	}
}

// privateAddresses flags deployments of private groups that do not point
// at a private address.
func (k *checker) privateAddresses() {
	bound := "a loopback, RFC 1918, link-local or ULA address"
	if len(k.opts.PrivateDomains) > 0 {
		bound += ", or a host in " + strings.Join(k.opts.PrivateDomains, ", ")
	}
	for _, e := range k.c.Entries {
		if !k.isPrivate(e.ModelName) {
			continue
		}
		s := e.deploymentSetting("api_base")
		if !s.set() {
			k.add(RulePrivateAddr, e, e.Line, "litellm_params.api_base", "", bound,
				fmt.Sprintf("deployment %q of private group %q has no api_base: LiteLLM calls the provider's public endpoint", e.Model, e.ModelName))
			continue
		}
		if why := k.publicAddress(s.val.Value); why != "" {
			k.add(RulePrivateAddr, e, s.val.Line, s.field(), s.val.Value, bound,
				fmt.Sprintf("deployment %q of private group %q %s", e.Model, e.ModelName, why))
		}
	}
}

// publicAddress returns why api_base may leave the private network, or ""
// when it points at a private address or a host in a private domain.
func (k *checker) publicAddress(base string) string {
	if strings.HasPrefix(base, "os.environ/") {
		return "reads its api_base from the environment at start: the check cannot tell the address is private"
	}
	raw := base
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return "has an api_base that is not a URL"
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if ip, err := netip.ParseAddr(host); err == nil {
		if privateIP(ip) {
			return ""
		}
		return fmt.Sprintf("is addressed by the public IP %s", ip)
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return ""
	}
	for _, d := range k.opts.PrivateDomains {
		d = strings.ToLower(strings.Trim(d, "."))
		if host == d || strings.HasSuffix(host, "."+d) {
			return ""
		}
	}
	return fmt.Sprintf("calls host %q, outside the private domains", host)
}

// privateIP reports whether ip is loopback (127.0.0.0/8, ::1), RFC 1918
// (10/8, 172.16/12, 192.168/16), link-local (169.254/16, fe80::/10) or an
// IPv6 unique local address (fc00::/7); an IPv4-mapped IPv6 address is
// judged as the IPv4 address it carries.
func privateIP(ip netip.Addr) bool {
	ip = ip.Unmap()
	return ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast()
}
