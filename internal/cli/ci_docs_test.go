package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"

	"github.com/tokenfare/tokenfare/gateway"
	"github.com/tokenfare/tokenfare/gateway/cliproxy"
	"github.com/tokenfare/tokenfare/gateway/litellm"
)

// shellWords splits a command line as a shell would for the simple lines
// of the examples: words, single and double quotes, $VAR from env, and a
// redirection or pipe ending the command.
func shellWords(t *testing.T, line string, env map[string]string) []string {
	t.Helper()
	var words []string
	var cur strings.Builder
	in := false
	var quote byte
	expand := func(s string) string {
		return regexp.MustCompile(`\$\{?(\w+)\}?`).ReplaceAllStringFunc(s, func(v string) string {
			name := strings.Trim(v, "${}")
			val, ok := env[name]
			if !ok {
				t.Errorf("%q: unknown variable %s", line, v)
			}
			return val
		})
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			cur.WriteByte(c)
		case c == '"' || c == '\'':
			quote, in = c, true
		case c == ' ' || c == '\t':
			if in {
				words = append(words, expand(cur.String()))
				cur.Reset()
				in = false
			}
		case c == '>' || c == '|' || c == '#':
			i = len(line)
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, expand(cur.String()))
	}
	return words
}

// parseAgainstTree checks that a tokenfare command line names a real
// command and that its flags and arguments parse, without running it.
func parseAgainstTree(t *testing.T, where string, args []string) {
	t.Helper()
	root := newRootCmd(&app{})
	cmd, rest, err := root.Find(args)
	if err != nil || cmd == root {
		t.Errorf("%s: %q: no such command: %v", where, args, err)
		return
	}
	if err := cmd.ParseFlags(rest); err != nil {
		t.Errorf("%s: %q: %v", where, args, err)
		return
	}
	if cmd.Args != nil {
		if err := cmd.Args(cmd, cmd.Flags().Args()); err != nil {
			t.Errorf("%s: %q: %v", where, args, err)
		}
	}
}

// tokenfareLines returns the tokenfare command lines of a shell script.
func tokenfareLines(script string) []string {
	var out []string
	for _, l := range strings.Split(script, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "tokenfare ") {
			out = append(out, l)
		}
	}
	return out
}

// TestCIWorkflowExample: the GitHub Actions workflow of docs/examples is
// valid YAML with the shape Actions needs, and every tokenfare command it
// runs parses against the real command tree.
func TestCIWorkflowExample(t *testing.T) {
	const path = "../../docs/examples/gateway-prices.yml"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Name string
		On   map[string]any `yaml:"on"`
		Env  map[string]string
		Jobs map[string]struct {
			RunsOn string `yaml:"runs-on"`
			Steps  []map[string]any
		}
	}
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	if err := dec.Decode(&wf); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if wf.Name == "" || len(wf.On) == 0 || len(wf.Jobs) == 0 {
		t.Fatalf("%s: name, on and jobs are required", path)
	}
	env := map[string]string{}
	for k, v := range wf.Env {
		env[k] = v
	}
	// Variables a step sets for the next ones (echo "AS_OF=..." >>
	// "$GITHUB_ENV") stand for an instant here; TestCIWorkflowRuns runs them.
	for _, m := range regexp.MustCompile(`echo "(\w+)=.*>> "\$GITHUB_ENV"`).FindAllStringSubmatch(string(data), -1) {
		env[m[1]] = "2026-11-03T16:00:00Z"
	}
	called := map[string]bool{}
	for name, job := range wf.Jobs {
		if job.RunsOn == "" || len(job.Steps) == 0 {
			t.Errorf("job %s: runs-on and steps are required", name)
		}
		for i, step := range job.Steps {
			_, uses := step["uses"]
			run, isRun := step["run"].(string)
			if uses == isRun {
				t.Errorf("job %s step %d: exactly one of uses and run", name, i)
			}
			for _, l := range tokenfareLines(run) {
				args := shellWords(t, l, env)[1:]
				called[args[0]] = true
				parseAgainstTree(t, path+": job "+name, args)
			}
		}
	}
	for _, c := range []string{"blend", "check"} {
		if !called[c] {
			t.Errorf("%s never runs tokenfare %s", path, c)
		}
	}
}

// TestCIRecipe: every tokenfare command in docs/ci.md's shell blocks parses.
func TestCIRecipe(t *testing.T) {
	data, err := os.ReadFile("../../docs/ci.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(string(data), -1)
	n := 0
	for _, b := range blocks {
		// A variable the block sets (AS_OF=$(date ...)) stands for an instant.
		env := map[string]string{}
		for _, m := range regexp.MustCompile(`(?m)^(\w+)=`).FindAllStringSubmatch(b[1], -1) {
			env[m[1]] = "2026-11-03T16:00:00Z"
		}
		for _, l := range tokenfareLines(b[1]) {
			parseAgainstTree(t, "docs/ci.md", shellWords(t, l, env)[1:])
			n++
		}
	}
	if n < 3 {
		t.Errorf("docs/ci.md: %d tokenfare commands found, want the recipe's blend, write and check", n)
	}
}

// TestHelpExamples: every Example line of every command parses against
// the real tree, and the ones that name the repository's own data (the
// bundled sample, the catalog) run and exit 0, so that a user copying
// them from --help gets a report, not "nothing priced".
func TestHelpExamples(t *testing.T) {
	userFile := regexp.MustCompile(`\.(csv|ya?ml|jsonl?|gz)$`)
	envVar := regexp.MustCompile(`\$\{?(\w+)\}?`)
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir()) // what an example writes (report --xlsx october.xlsx) lands here
	var walk func(c *cobra.Command)
	ran := 0
	walk = func(c *cobra.Command) {
		// A variable of an example ($DATABASE_URL) stands for the user's
		// value: such a line is parsed, not run.
		env := map[string]string{}
		for _, m := range envVar.FindAllStringSubmatch(c.Example, -1) {
			env[m[1]] = "<" + m[1] + ">"
		}
		for _, l := range tokenfareLines(c.Example) {
			args := shellWords(t, l, env)[1:]
			where := c.CommandPath() + " --help"
			// A root flag alone (tokenfare --version) names no command; it is run.
			local := strings.HasPrefix(args[0], "-")
			if !local {
				parseAgainstTree(t, where, args)
			}
			foreign := false
			for i, a := range args {
				switch {
				case strings.HasPrefix(a, "testdata/") || strings.HasPrefix(a, "tariffs/"):
					args[i], local = filepath.Join(root, a), true
				case userFile.MatchString(a):
					foreign = true // a user's own file: the line is only parsed
				}
			}
			if !local || foreign {
				continue
			}
			ran++
			if code, _, errs := runCLI(t, "", args...); code != exitOK {
				t.Errorf("%s: %q exits %d, want 0:\n%s", where, l, code, errs)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCmd(&app{}))
	if ran < 4 {
		t.Errorf("%d examples naming the repository's data ran, want at least the sample's reconcile, price, blend and tariffs validate", ran)
	}
}

// TestCIDocsListEveryRule: docs/ci.md has a row for every rule of check,
// with its reason and a flag column, and check --help names every rule.
func TestCIDocsListEveryRule(t *testing.T) {
	rules := []string{
		litellm.RuleUntariffed, litellm.RulePriceFormat, litellm.RulePriceBounds, litellm.RuleZeroPrice,
		litellm.RuleNoCustom, litellm.RuleInconsistent, litellm.RuleOffPeak, litellm.RuleHealthCheck,
		litellm.RuleCooldown, litellm.RuleRateLimit, litellm.RulePrivateFall, litellm.RulePrivateAlias,
		litellm.RulePrivateAddr, cliproxy.RuleSingleKeyCooling, cliproxy.RuleGlobalCoolingOff, gateway.RuleAccept,
	}
	data, err := os.ReadFile("../../docs/ci.md")
	if err != nil {
		t.Fatal(err)
	}
	_, help, _ := runCLI(t, "", "check", "--help")
	for _, r := range rules {
		row := regexp.MustCompile("(?m)^\\| `" + regexp.QuoteMeta(r) + "` \\| ([^|]+) \\| ([^|]+) \\|$").FindStringSubmatch(string(data))
		if row == nil {
			t.Errorf("docs/ci.md: no row | `%s` | reason | flag |", r)
		} else if len(strings.TrimSpace(row[1])) < 20 {
			t.Errorf("docs/ci.md: rule %s: reason %q", r, row[1])
		}
		if !regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(r) + ` `).MatchString(help) {
			t.Errorf("check --help does not list rule %s", r)
		}
	}
}
