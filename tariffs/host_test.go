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
			want:  []string{`t.yaml:2: warning: host "myproxy" is not one tokenfare recognises in gateway logs (known: anthropic, deepseek, gemini, openai, azure, azure_ai, bedrock, github, openrouter, together_ai, vertex_ai); only calls a gateway logs with that provider name are priced by this file`},
		},
		{name: "misspelled", file: withHosts("[vertexai, bedrok]"), want: []string{
			`t.yaml:2: unknown host "vertexai": did you mean "vertex_ai"?`,
			`t.yaml:2: unknown host "bedrok": did you mean "bedrock"?`,
		}},
		{name: "an alias", file: withHosts("[vertex]"), want: []string{`t.yaml:2: host "vertex" is written "vertex_ai" in tariff files`}},
		{name: "upper case", file: withHosts("[Azure]"), want: []string{`t.yaml:2: host "Azure" is written "azure" in tariff files`}},
		{name: "not a name", file: withHosts(`["my proxy"]`), want: []string{`t.yaml:2: host "my proxy": a host name is lowercase letters, digits and _ . - (known hosts: anthropic, deepseek, gemini, openai, azure, azure_ai, bedrock, github, openrouter, together_ai, vertex_ai)`}},
		{name: "twice", file: withHosts("[azure, azure]"), want: []string{`t.yaml:2: host "azure" is listed twice (first at line 2)`}},
		{name: "empty list", file: withHosts("[]"), want: []string{`t.yaml:2: hosts: list at least one host, or leave the key out to price the host named by provider`}},
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
