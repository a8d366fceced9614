package litellm

import (
	"strings"
	"testing"
)

func TestPublicAddress(t *testing.T) {
	k := &checker{opts: CheckOptions{PrivateDomains: []string{"corp.internal", ".lab.example."}}}
	tests := []struct {
		base string
		want string // a word of the reason; "" for a private address
	}{
		{"http://127.0.0.1:11434", ""},
		{"http://127.8.9.10", ""}, // all of 127.0.0.0/8 is loopback
		{"http://[::1]:8000/v1", ""},
		{"10.0.0.5:8000", ""}, // no scheme
		{"http://172.31.255.255", ""},
		{"http://172.32.0.1", "public IP"}, // just past 172.16.0.0/12
		{"http://192.168.0.1", ""},
		{"http://169.254.169.254", ""},
		{"http://[fe80::1]", ""},
		{"http://[fd00::1]", ""},
		{"http://[fc00::1]", ""},
		{"http://[::ffff:10.0.0.1]", ""}, // IPv4-mapped: judged as 10.0.0.1
		{"http://[::ffff:8.8.8.8]", "public IP"},
		{"https://8.8.8.8/v1", "public IP"},
		{"http://[2001:4860::8888]", "public IP"},
		{"http://LOCALHOST:4000", ""},
		{"https://gpu.corp.internal/v1", ""},
		{"https://corp.internal./v1", ""}, // trailing dot of a fully qualified name
		{"https://box.lab.example", ""},   // the flag's dots do not matter
		{"https://evilcorp.internal", "outside the private domains"},
		{"https://corp.internal.evil.com", "outside the private domains"},
		{"https://api.openai.com/v1", "outside the private domains"},
		{"os.environ/BASE", "environment"},
		{"http://", "not a URL"},
	}
	for _, tc := range tests {
		got := k.publicAddress(tc.base)
		if (got == "") != (tc.want == "") || !strings.Contains(got, tc.want) {
			t.Errorf("publicAddress(%q) = %q, want %q", tc.base, got, tc.want)
		}
	}
}

func TestMatchGroup(t *testing.T) {
	tests := []struct {
		pattern, group string
		want           bool
	}{
		{"private/*", "private/llama", true},
		{"private/*", "private/team/llama", true}, // * crosses "/"
		{"private/*", "private", false},
		{"private/*", "public/private/llama", false},
		{"*-local", "team/llama-local", true},
		{"private/[ab]*", "private/b-70b", true},
		{"private/[ab]*", "private/c", false},
		{"private/?", "private/x", true},
		{"private/[", "private/[", false}, // malformed: matches nothing
	}
	for _, tc := range tests {
		if got := matchGroup(tc.pattern, tc.group); got != tc.want {
			t.Errorf("matchGroup(%q, %q) = %v, want %v", tc.pattern, tc.group, got, tc.want)
		}
	}
}
