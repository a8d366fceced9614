package tariffs

import (
	"slices"
	"strings"
	"testing"
)

const hostVersion = "versions:\n  - effective: 2026-01-01T00:00:00Z\n    prices: {m: {standard: {input: 1, output: 2}}}\n"

// withHosts is head with a hosts line after the provider line.
func withHosts(hosts string) string {
	return strings.Replace(head, "provider: p\n", "provider: p\nhosts: "+hosts+"\n", 1) + hostVersion
}

func TestParseHosts(t *testing.T) {
	tests := []struct {
		name       string
		file       string
		hosts      []string
		firstParty bool
		want       []string // every problem, exactly
	}{
		{name: "no key: the provider name is the host", file: head + hostVersion, hosts: []string{"p"}, firstParty: true},
		{name: "a first party", file: withHosts("[deepseek]"), hosts: []string{"deepseek"}, firstParty: true},
		{name: "a cloud", file: withHosts("[azure, azure_ai]"), hosts: []string{"azure", "azure_ai"}},
		{name: "provider google without the key", file: strings.Replace(head, "provider: p", "provider: google", 1) + hostVersion, hosts: []string{"gemini"}, firstParty: true},
		{name: "provider azure without the key", file: strings.Replace(head, "provider: p", "provider: azure", 1) + hostVersion, hosts: []string{"azure"}},
		{
			name:  "a host no gateway log names",
			file:  withHosts("[myproxy]"),
			hosts: []string{"myproxy"},
			want:  []string{`t.yaml:2: warning: host "myproxy" is not one tokenfare recognises in gateway logs (known: anthropic, deepseek, gemini, openai, azure, azure_ai, bedrock, dashscope, github, openrouter, together_ai, vertex_ai); only calls a gateway logs with that provider name are priced by this file`},
		},
		{name: "misspelled", file: withHosts("[vertexai, bedrok]"), want: []string{
			`t.yaml:2: unknown host "vertexai": did you mean "vertex_ai"?`,
			`t.yaml:2: unknown host "bedrok": did you mean "bedrock"?`,
		}},
		{name: "an alias", file: withHosts("[vertex]"), want: []string{`t.yaml:2: host "vertex" is written "vertex_ai" in tariff files`}},
		{name: "upper case", file: withHosts("[Azure]"), want: []string{`t.yaml:2: host "Azure" is written "azure" in tariff files`}},
		{name: "not a name", file: withHosts(`["my proxy"]`), want: []string{`t.yaml:2: host "my proxy": a host name is lowercase letters, digits and _ . - (known hosts: anthropic, deepseek, gemini, openai, azure, azure_ai, bedrock, dashscope, github, openrouter, together_ai, vertex_ai)`}},
		{name: "twice", file: withHosts("[azure, azure]"), want: []string{`t.yaml:2: host "azure" is listed twice (first at line 2)`}},
		{name: "the reserved host", file: withHosts("[unknown]"), want: []string{`t.yaml:2: host "unknown" is reserved for calls whose record does not name their host, which no tariff prices`}},
		{name: "the reserved host as provider", file: strings.Replace(head, "provider: p", "provider: Unknown", 1) + hostVersion,
			want: []string{`t.yaml:1: provider "Unknown": host "unknown" is reserved for calls whose record does not name their host, which no tariff prices; add hosts: to name the host this file prices`}},
		{name: "empty list", file: withHosts("[]"), want: []string{`t.yaml:2: hosts: list at least one host, or leave the key out to price the host named by provider`}},
		{name: "no value", file: withHosts(""), want: []string{`t.yaml:2: hosts: list at least one host, or leave the key out to price the host named by provider`}},
		{name: "an empty item", file: withHosts("[azure, ~]"), want: []string{`t.yaml:2: host is required (an empty item in hosts)`}},
		{name: "only an empty item", file: withHosts("[~]"), want: []string{`t.yaml:2: hosts: list at least one host, or leave the key out to price the host named by provider`}},
		{name: "a single value", file: withHosts("azure"), want: []string{"t.yaml:2: expected a list, not `azure`"}},
		{
			name: "a first-party file naming another host",
			file: strings.Replace(withHosts("[openai]"), "names: [m, p/m]", "names: [m, azure/m, openai/m]", 1),
			want: []string{`t.yaml:10: name "azure/m" starts with host "azure", which this file does not price (hosts: openai): a file with hosts: [azure] prices those calls`},
		},
		{
			name:  "a host file may name another host's models (OpenRouter's deepseek/...)",
			file:  strings.Replace(withHosts("[openrouter]"), "names: [m, p/m]", "names: [m, deepseek/m]", 1),
			hosts: []string{"openrouter"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, ps := Parse("t.yaml", []byte(tt.file))
			var got []string
			for _, pr := range ps {
				got = append(got, pr.Error())
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("problems:\n got %q\nwant %q", got, tt.want)
			}
			if p == nil {
				if len(tt.hosts) > 0 {
					t.Fatalf("no provider, want hosts %v", tt.hosts)
				}
				return
			}
			if !slices.Equal(p.Hosts, tt.hosts) || p.FirstParty() != tt.firstParty {
				t.Errorf("hosts %v first party %v, want %v %v", p.Hosts, p.FirstParty(), tt.hosts, tt.firstParty)
			}
		})
	}
}

// TestNoHostPricedAtAnotherHostsTariff tries every name of every model of
// a catalog under every known host, with the host logged and as the name's
// prefix (as LiteLLM logs "azure/gpt-4o"): a name that resolves must
// resolve to a list of that host. It fails if any host prefix is priced
// at another host's tariff.
func TestNoHostPricedAtAnotherHostsTariff(t *testing.T) {
	for _, path := range []string{"", "../testdata/hosts/tariffs"} {
		cat, ps := Load(path)
		if len(ps.Errors()) > 0 {
			t.Fatal(ps)
		}
		tried, found := 0, 0
		for _, h := range KnownHosts() {
			for _, m := range cat.Models() {
				for _, n := range m.Names {
					for _, q := range []struct{ host, name string }{{h, n}, {"", h + "/" + n}, {h, h + "/" + n}} {
						tried++
						got, at, ok := cat.ResolveOn(q.host, q.name)
						if !ok {
							continue
						}
						found++
						if !slices.Contains(got.Provider.Hosts, h) {
							t.Errorf("catalog %q: ResolveOn(%q, %q) = %s of %s (hosts %v), looked up for %q: want a list of host %s or nothing",
								path, q.host, q.name, got.ID, got.Provider.Name, got.Provider.Hosts, at, h)
						}
					}
				}
			}
		}
		if found == 0 || found == tried {
			t.Errorf("catalog %q: %d of %d names resolved: the test proves nothing", path, found, tried)
		}
	}
}

func TestResolveOn(t *testing.T) {
	cat, ps := Load("../testdata/hosts/tariffs")
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	tests := []struct {
		name, host, model string
		want, at          string // model id ("" unpriced), host looked up
	}{
		{"bare name: first-party lists", "", "gpt-4o", "gpt-4o", ""},
		{"first-party prefix routes to its own list", "", "openai/gpt-4o", "gpt-4o", "openai"},
		{"first-party host logged", "openai", "gpt-4o", "gpt-4o", "openai"},
		{"host logged, prefix stripped", "azure", "azure/gpt-4o", "azure-gpt-4o", "azure"},
		{"host prefix alone decides", "", "azure/gpt-4o", "azure-gpt-4o", "azure"},
		{"host logged in capitals", "Azure", "gpt-4o", "azure-gpt-4o", "azure"},
		{"an alias of the host", "bedrock_converse", "us.anthropic.claude-sonnet-4-6", "bedrock-claude-sonnet-4-6-geo", "bedrock"},
		{"bedrock route word", "bedrock", "bedrock/converse/global.anthropic.claude-sonnet-4-6", "bedrock-claude-sonnet-4-6-global", "bedrock"},
		{"a host's names keep their own slashes", "openrouter", "openrouter/deepseek/deepseek-v4-pro", "openrouter-deepseek-v4-pro", "openrouter"},
		{"a host's list lacks the name: no other host's", "openrouter", "deepseek-v4-pro", "", "openrouter"},
		{"a host with no list", "vertex_ai", "claude-sonnet-4-6", "", "vertex_ai"},
		{"a host with no list, from the prefix", "", "github/gpt-4o", "", "github"},
		{"a first-party name on another first party", "anthropic", "gpt-4o", "", "anthropic"},
		{"an unknown prefix is no host", "", "acme/gpt-4o", "", ""},
		{"an OpenAI-compatible route named by its host", "deepseek", "openai/deepseek-v4-pro", "deepseek-v4-pro", "deepseek"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, at, ok := cat.ResolveOn(tt.host, tt.model)
			got := ""
			if ok {
				got = m.ID
			}
			if got != tt.want || at != tt.at || ok != (tt.want != "") {
				t.Errorf("ResolveOn(%q, %q) = %q at %q (%v), want %q at %q", tt.host, tt.model, got, at, ok, tt.want, tt.at)
			}
		})
	}
	for _, tt := range []struct {
		host string
		want bool
	}{{"", true}, {"azure", true}, {"AZURE", true}, {"azure_ai", false}, {"vertex_ai", false}, {"bedrock_converse", true}} {
		if got := cat.PricesHost(tt.host); got != tt.want {
			t.Errorf("PricesHost(%q) = %v, want %v", tt.host, got, tt.want)
		}
	}
}

func TestNamesUniquePerHost(t *testing.T) {
	file := func(provider, hosts, names string) string {
		return "provider: " + provider + "\nhosts: " + hosts + "\ncurrency: USD\ntimezone: UTC\nbilling_time: end\n" +
			"sources: [{url: https://example.com, kind: secondary, checked: 2026-12-01}]\nmodels:\n  - id: " + provider + "-m\n    names: " + names + "\n" +
			"versions:\n  - effective: 2026-01-01T00:00:00Z\n    prices: {" + provider + "-m: {standard: {input: 1, output: 2}}}\n"
	}
	tests := []struct {
		name  string
		files [][2]string // provider file name, text
		want  []string
	}{
		{name: "one name on two hosts", files: [][2]string{{"a.yaml", file("a", "[openai]", "[gpt-4o]")}, {"b.yaml", file("b", "[azure]", "[gpt-4o]")}}},
		{name: "one name twice on one host", files: [][2]string{{"a.yaml", file("a", "[azure]", "[gpt-4o]")}, {"b.yaml", file("b", "[azure]", "[gpt-4o]")}},
			want: []string{`b.yaml:9: name "gpt-4o" is claimed by models "a-m" (a.yaml:8) and "b-m" for host azure`}},
		{name: "one name in two first-party lists", files: [][2]string{{"a.yaml", file("a", "[openai]", "[gpt-4o]")}, {"b.yaml", file("b", "[deepseek]", "[gpt-4o]")}},
			want: []string{`b.yaml:9: name "gpt-4o" is claimed by models "a-m" (a.yaml:8) and "b-m" among first-party lists (calls with no host)`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var providers []*Provider
			for _, f := range tt.files {
				p, ps := Parse(f[0], []byte(f[1]))
				if p == nil {
					t.Fatal(ps)
				}
				providers = append(providers, p)
			}
			_, ps := New(providers)
			var got []string
			for _, p := range ps {
				got = append(got, p.Error())
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("problems:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}
