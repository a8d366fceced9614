package cliproxy

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/tokenfare/tokenfare/gateway"
)

// TestCheck runs both cooling rules on every fixture: each failing one
// gives findings of its own rule only, each passing one none of either.
func TestCheck(t *testing.T) {
	tests := []struct {
		file string
		want []string // "line rule provider field"
	}{
		// The Claude entry starts on line 6, DeepSeek's on line 9; the
		// pooled provider has two keys.
		{"testdata/single-key-cooling-fail.yaml", []string{
			"6 single-key-cooling claude claude-api-key[0].disable-cooling",
			"9 single-key-cooling deepseek openai-compatibility[0].disable-cooling"}},
		{"testdata/single-key-cooling-pass.yaml", nil},
		// Claude (2 keys, line 6) and pooled (3 keys, line 12) inherit the
		// global switch; DeepSeek has one key, pooled-own turns cooling back on.
		{"testdata/global-cooling-off-fail.yaml", []string{
			"6 global-cooling-off claude claude-api-key.disable-cooling",
			"12 global-cooling-off pooled openai-compatibility[1].disable-cooling"}},
		{"testdata/global-cooling-off-pass.yaml", nil},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			data, err := os.ReadFile(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			if !Detect(data) {
				t.Fatal("not detected as a CLIProxyAPI config")
			}
			fs, err := Check(tc.file, data, Options{PoolKeys: 2})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range fs {
				if f.Severity != gateway.Problem || f.File != tc.file || f.Message == "" {
					t.Errorf("finding %v", f)
				}
				got = append(got, fmt.Sprintf("%d %s %s %s", f.Line, f.Rule, f.ModelName, f.Field))
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// TestCheckPoolKeys: the threshold moves a provider from one rule to the
// other.
func TestCheckPoolKeys(t *testing.T) {
	single := "claude-api-key: [{api-key: a}, {api-key: b}]\n"
	global := "disable-cooling: true\n" + single
	tests := []struct {
		name, src string
		pool      int
		want      string // the rules found, space separated
	}{
		{"two keys are a pool by default", single, 2, ""},
		{"two keys below a pool of three: cooling on is a finding", single, 3, RuleSingleKeyCooling},
		{"two keys, cooling off globally", global, 2, RuleGlobalCoolingOff},
		{"two keys below a pool of three: cooling off is right", global, 3, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs, err := Check("c.yaml", []byte(tc.src), Options{PoolKeys: tc.pool})
			if err != nil {
				t.Fatal(err)
			}
			var rules []string
			for _, f := range fs {
				rules = append(rules, f.Rule)
			}
			if got := strings.Join(rules, " "); got != tc.want {
				t.Errorf("rules %q, want %q", got, tc.want)
			}
		})
	}
}

// TestCheckFixSaysPerProvider: the global finding tells the fix.
func TestCheckFixSaysPerProvider(t *testing.T) {
	fs, err := Check("c.yaml", []byte("disable-cooling: true\nclaude-api-key: [{api-key: a}, {api-key: b}]\n"), Options{PoolKeys: 2})
	if err != nil || len(fs) != 1 {
		t.Fatalf("findings %v, %v", fs, err)
	}
	for _, want := range []string{"line 1", "holds 2 keys", "per provider", RotationNote("claude", 2)} {
		if !strings.Contains(fs[0].Message, want) {
			t.Errorf("message %q lacks %q", fs[0].Message, want)
		}
	}
}

// TestCheckSingleKeySaysTheFix: a provider of one key is told the change
// in the words failures gives its episodes (SingleKeyFix).
func TestCheckSingleKeySaysTheFix(t *testing.T) {
	tests := []struct {
		name, cfg, want string
	}{
		{"keyed section: its one key", "claude-api-key:\n  - api-key: a\n",
			"set disable-cooling: true on provider claude's block (claude-api-key[0].disable-cooling), never globally, or add a second key"},
		{"openai-compatibility entry: the entry", "openai-compatibility:\n  - name: deepseek\n    api-key-entries: [{api-key: a}]\n",
			"set disable-cooling: true on provider deepseek's block (openai-compatibility[0].disable-cooling), never globally, or add a second key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs, err := Check("c.yaml", []byte(tt.cfg), Options{PoolKeys: 2})
			if err != nil || len(fs) != 1 || fs[0].Rule != RuleSingleKeyCooling {
				t.Fatalf("findings %v, %v", fs, err)
			}
			if !strings.HasSuffix(fs[0].Message, tt.want) {
				t.Errorf("message %q, want it to end %q", fs[0].Message, tt.want)
			}
		})
	}
}

func TestDetect(t *testing.T) {
	tests := []struct {
		src  string
		want bool
	}{
		{"claude-api-key: [{api-key: x}]\n", true},
		{"model_list: []\nrouter_settings: {}\n", false},
		{"model_list: []\napi-keys: [x]\n", false}, // model_list marks LiteLLM
		{"just: yaml\n", false},
		{"[not, a, mapping]\n", false},
	}
	for _, tc := range tests {
		if got := Detect([]byte(tc.src)); got != tc.want {
			t.Errorf("Detect(%q) = %v, want %v", tc.src, got, tc.want)
		}
	}
}

func TestCheckGlobalSwitches(t *testing.T) {
	for _, src := range []string{
		"disable-cooling: true\nclaude-api-key: [{api-key: x}]\n",
		"transient-error-cooldown-seconds: -1\nclaude-api-key: [{api-key: x}]\n",
		"claude-api-key: [{api-key: x, disable-cooling: true}]\n",
	} {
		fs, err := Check("c.yaml", []byte(src), Options{PoolKeys: 2})
		if err != nil || len(fs) != 0 {
			t.Errorf("Check(%q) = %v, %v; want no finding", src, fs, err)
		}
	}
	if _, err := Check("c.yaml", []byte("a: [\n"), Options{PoolKeys: 2}); err == nil {
		t.Error("unparsable config: no error")
	}
}
