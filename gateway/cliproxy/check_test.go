package cliproxy

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/tokenfare/tokenfare/gateway"
)

func TestCheck(t *testing.T) {
	tests := []struct {
		file string
		want []string // "line provider field"
	}{
		// The Claude entry starts on line 6, DeepSeek's on line 9; the
		// pooled provider has two keys.
		{"testdata/single-key-cooling-fail.yaml", []string{"6 claude claude-api-key[0].disable-cooling", "9 deepseek openai-compatibility[0].disable-cooling"}},
		{"testdata/single-key-cooling-pass.yaml", nil},
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
			fs, err := Check(tc.file, data)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range fs {
				if f.Rule != RuleSingleKeyCooling || f.Severity != gateway.Problem || f.File != tc.file {
					t.Errorf("finding %v", f)
				}
				got = append(got, fmt.Sprintf("%d %s %s", f.Line, f.ModelName, f.Field))
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
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
	} {
		fs, err := Check("c.yaml", []byte(src))
		if err != nil || len(fs) != 0 {
			t.Errorf("Check(%q) = %v, %v; want no finding", src, fs, err)
		}
	}
	if _, err := Check("c.yaml", []byte("a: [\n")); err == nil {
		t.Error("unparsable config: no error")
	}
}
