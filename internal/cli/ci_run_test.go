package cli

import (
	"bytes"
	"context"
	"encoding/csv"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// ciStep is a step of the example workflow, as the runner reads it.
type ciStep struct {
	ID   string `yaml:"id"`
	Name string `yaml:"name"`
	If   string `yaml:"if"`
	Uses string `yaml:"uses"`
	Run  string `yaml:"run"`
}

// ciWorkflow is the example workflow: its env and its jobs' steps.
type ciWorkflow struct {
	Env  map[string]string
	Jobs map[string]struct {
		If    string `yaml:"if"`
		Steps []ciStep
	}
}

// ciRun is one run of the workflow: the event that started it, the clock,
// the folder it runs in, and what its steps left.
type ciRun struct {
	t       *testing.T
	event   string // github.event_name
	cron    string // github.event.schedule
	now     time.Time
	dir     string
	sample  string // the spend logs the database holds
	env     map[string]string
	outputs map[string]map[string]string // step id → output → value
	stderr  strings.Builder              // every tokenfare line's stderr
	ran     []string                     // names of the steps run
	mayFail bool                         // a failing tokenfare line is recorded in failed, not fatal
	failed  []string
}

// tokenfareColumns are the LiteLLM_SpendLogs columns the spend-log reader
// reads (ledger/spendlog.go), the ones an export needs.
var tokenfareColumns = []string{"request_id", "call_type", "api_key", "spend", "total_tokens", "prompt_tokens",
	"completion_tokens", "startTime", "endTime", "completionStartTime", "model", "model_id", "model_group",
	"custom_llm_provider", "api_base", "user", "team_id", "status", "cache_hit", "metadata"}

// cond evaluates a step's or job's if: the forms the workflow uses, a
// context value compared with a quoted literal.
func (r *ciRun) cond(expr string) bool {
	if expr == "" {
		return true
	}
	m := regexp.MustCompile(`^([\w.]+) (==|!=) '([^']*)'$`).FindStringSubmatch(expr)
	if m == nil {
		r.t.Fatalf("if: %q: not a form the runner knows", expr)
	}
	var v string
	switch p := strings.Split(m[1], "."); {
	case m[1] == "github.event_name":
		v = r.event
	case m[1] == "github.event.schedule":
		v = r.cron
	case len(p) == 4 && p[0] == "steps" && p[2] == "outputs":
		v = r.outputs[p[1]][p[3]]
	default:
		r.t.Fatalf("if: %q: unknown context %s", expr, m[1])
	}
	return (v == m[3]) == (m[2] == "==")
}

// job runs the steps of one job in order, as Actions would: a step whose
// if is false is skipped, a failing line fails the test.
func (r *ciRun) job(wf *ciWorkflow, name string) {
	j := wf.Jobs[name]
	if !r.cond(j.If) {
		return
	}
	for _, s := range j.Steps {
		if s.Uses != "" || strings.HasPrefix(s.Run, "go install") || !r.cond(s.If) {
			continue
		}
		r.ran = append(r.ran, s.Name)
		r.step(s)
	}
}

// step runs a step's script line by line: tokenfare through the real
// command tree with the run's clock, psql as an export of the sample
// holding only the columns and rows the query selects, anything else in
// bash, with GITHUB_ENV and GITHUB_OUTPUT read back after the step.
func (r *ciRun) step(s ciStep) {
	t := r.t
	envFile, outFile := filepath.Join(t.TempDir(), "env"), filepath.Join(t.TempDir(), "output")
	// Consecutive shell lines run as one script, sharing its variables.
	var chunks []string
	shell := false
	for _, l := range strings.Split(strings.TrimSpace(s.Run), "\n") {
		l = strings.TrimSpace(l)
		isShell := !strings.HasPrefix(l, "tokenfare ") && !strings.HasPrefix(l, "psql ")
		if isShell && shell {
			chunks[len(chunks)-1] += "\n" + l
		} else {
			chunks = append(chunks, l)
		}
		shell = isShell
	}
	for _, l := range chunks {
		switch {
		case strings.HasPrefix(l, "tokenfare "):
			r.tokenfare(l)
		case strings.HasPrefix(l, "psql "):
			r.export(l)
		default:
			cmd := exec.Command("bash", "-eo", "pipefail", "-c", l)
			cmd.Dir = r.dir
			cmd.Env = append(os.Environ(), "GITHUB_ENV="+envFile, "GITHUB_OUTPUT="+outFile)
			for k, v := range r.env {
				cmd.Env = append(cmd.Env, k+"="+v)
			}
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("step %q: %s: %v\n%s", s.Name, l, err, out)
			}
		}
	}
	r.readBack(s.ID, envFile, outFile)
	if s.Name == "The window's end, computed once for every step" {
		r.window()
	}
}

// window checks the instants the window step computed with date (the top
// of the hour, and three hours before) and sets them from the run's clock.
func (r *ciRun) window() {
	t := r.t
	asOf, err1 := time.Parse(time.RFC3339, r.env["AS_OF"])
	since, err2 := time.Parse(time.RFC3339, r.env["SINCE"])
	if err1 != nil || err2 != nil || asOf.Truncate(time.Hour) != asOf || asOf.Sub(since) != 3*time.Hour {
		t.Fatalf("window step: AS_OF=%q SINCE=%q, want the top of the hour and 3 hours before (%v, %v)", r.env["AS_OF"], r.env["SINCE"], err1, err2)
	}
	asOf = r.now.Truncate(time.Hour)
	r.env["AS_OF"], r.env["SINCE"] = asOf.Format(time.RFC3339), asOf.Add(-3*time.Hour).Format(time.RFC3339)
}

// readBack reads what a step wrote to GITHUB_ENV and GITHUB_OUTPUT.
func (r *ciRun) readBack(id, envFile, outFile string) {
	for file, into := range map[string]func(k, v string){
		envFile: func(k, v string) { r.env[k] = v },
		outFile: func(k, v string) {
			if r.outputs[id] == nil {
				r.outputs[id] = map[string]string{}
			}
			r.outputs[id][k] = v
		},
	} {
		data, _ := os.ReadFile(file)
		for _, kv := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			if k, v, ok := strings.Cut(kv, "="); ok {
				into(k, v)
			}
		}
	}
}

// tokenfare runs one tokenfare line at the run's clock, honouring > and >>.
func (r *ciRun) tokenfare(line string) {
	t := r.t
	cmdline, redirect, file := line, "", ""
	if m := regexp.MustCompile(`^(.*?)\s+(>>|>)\s*(\S+)$`).FindStringSubmatch(line); m != nil {
		cmdline, redirect, file = m[1], m[2], m[3]
	}
	var out, errb bytes.Buffer
	a := &app{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, now: func() time.Time { return r.now }}
	code := runContext(context.Background(), a, shellWords(t, cmdline, r.env)[1:])
	r.stderr.WriteString(errb.String())
	if code != exitOK && r.mayFail {
		r.failed = append(r.failed, line)
		return
	}
	if code != exitOK {
		t.Fatalf("%s: %s: exit %d\n%s", r.now.Format(time.RFC3339), line, code, errb.String())
	}
	switch redirect {
	case ">":
		os.WriteFile(filepath.Join(r.dir, file), out.Bytes(), 0o644)
	case ">>":
		f, err := os.OpenFile(filepath.Join(r.dir, file), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		f.Write(out.Bytes())
		f.Close()
	}
}

// export stands in for the psql line: it checks that the query names the
// columns tokenfare reads and no others (no SELECT *: prompts and
// responses stay in the database), and writes the sample's rows of the
// query's window with those columns.
func (r *ciRun) export(line string) {
	t := r.t
	line = strings.ReplaceAll(line, `\"`, `"`)
	m := regexp.MustCompile(`SELECT (.*?) FROM "LiteLLM_SpendLogs" WHERE "startTime" >= timestamptz '\$AS_OF' - interval '(\d+) days' AND "startTime" < timestamptz '\$AS_OF'\) TO '([^']+)' CSV HEADER`).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("export: the query is not the window's select of named columns:\n%s", line)
	}
	var cols []string
	for _, c := range strings.Split(m[1], ",") {
		c = strings.Trim(strings.TrimSpace(c), `"`)
		if !slices.Contains(tokenfareColumns, c) {
			t.Errorf("export selects %q, a column tokenfare does not read", c)
		}
		cols = append(cols, c)
	}
	asOf, err := time.Parse(time.RFC3339, r.env["AS_OF"])
	if err != nil {
		t.Fatalf("AS_OF: %v", err)
	}
	days, _ := time.ParseDuration(m[2] + "h")
	from := asOf.Add(-24 * days)
	f, err := os.Open(r.sample)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	index := map[string]int{}
	for i, h := range rows[0] {
		index[h] = i
	}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write(cols)
	for _, row := range rows[1:] {
		start, err := time.Parse("2006-01-02 15:04:05.999", row[index["startTime"]])
		if err != nil {
			t.Fatal(err)
		}
		if start.Before(from) || !start.Before(asOf) {
			continue
		}
		out := make([]string, len(cols))
		for i, c := range cols {
			if j, ok := index[c]; ok {
				out[i] = row[j]
			}
		}
		w.Write(out)
	}
	w.Flush()
	if err := os.WriteFile(filepath.Join(r.dir, m[3]), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// ciConfig is the gateway config the workflow keeps: two DeepSeek models
// priced by time of day, no prices yet.
const ciConfig = `model_list:
  - model_name: deepseek-v4-pro
    litellm_params:
      model: deepseek/deepseek-v4-pro
      api_key: os.environ/DEEPSEEK_API_KEY
  - model_name: deepseek-flash
    litellm_params:
      model: deepseek/deepseek-flash
      api_key: os.environ/DEEPSEEK_API_KEY
`

// futureVersion appends to a copy of the catalog's DeepSeek file a version
// taking effect at 00:00 Beijing on Wednesday 2026-11-04: the last
// version's rules with deepseek-v4-pro 21 % dearer.
func futureVersion(t *testing.T) []byte {
	data, err := os.ReadFile("../../tariffs/catalog/deepseek.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	i := strings.Index(s, "  - effective: 2026-10-31T16:00:00Z")
	if i < 0 {
		t.Fatal("deepseek.yaml: its 2026-10-31 version is gone; pick the last version")
	}
	v := strings.NewReplacer(
		"effective: 2026-10-31T16:00:00Z", "effective: 2026-11-03T16:00:00Z",
		"name: 2026-11-01-search-fetch", "name: 2026-11-04-pro-rise",
		"offpeak: {input: 0.66, cache_read: 0.022, cache_write: 0.66, output: 1.98}", "offpeak: {input: 0.7986, cache_read: 0.02662, cache_write: 0.7986, output: 2.3958}",
		"peak:    {input: 1.32, cache_read: 0.044, cache_write: 1.32, output: 3.96}", "peak:    {input: 1.5972, cache_read: 0.05324, cache_write: 1.5972, output: 4.7916}",
	).Replace(s[i:])
	if !strings.Contains(v, "0.7986") {
		t.Fatal("deepseek.yaml: deepseek-v4-pro's prices changed; update the test's rise")
	}
	return []byte(strings.TrimRight(s, "\n") + "\n\n" + v)
}

// TestCIWorkflowRuns runs docs/examples/gateway-prices.yml step by step
// around a tariff version committed ahead of its effective instant: the
// weekly run blends at the tariff in force and warns of the version; the
// hourly runs before it and three hours after it export nothing; the one
// just after it blends at it, so the config matches the new tariff's blend
// within the hour; the check job passes.
func TestCIWorkflowRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("long: `make test-long` runs it")
	}
	if _, err := exec.LookPath("jq"); err != nil {
		t.Skip("jq not installed: the workflow's due step needs it (ubuntu-latest has it)")
	}
	data, err := os.ReadFile("../../docs/examples/gateway-prices.yml")
	if err != nil {
		t.Fatal(err)
	}
	var wf ciWorkflow
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatal(err)
	}
	sample, err := filepath.Abs("../../testdata/sample/spendlogs-2026-10.csv")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for path, body := range map[string][]byte{
		wf.Env["CONFIG"]: []byte(ciConfig),
		filepath.Join(wf.Env["TARIFFS"], "deepseek.yaml"): futureVersion(t),
	} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(path)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, path), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	config := func() string {
		data, err := os.ReadFile(filepath.Join(dir, wf.Env["CONFIG"]))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	// The export the run just after the change makes, by the workflow's
	// own query, kept as reference.csv.
	ref := &ciRun{t: t, dir: dir, sample: sample, env: map[string]string{"AS_OF": "2026-11-03T16:00:00Z"}}
	for _, st := range wf.Jobs["blend"].Steps {
		if strings.HasPrefix(st.Run, "psql ") {
			ref.export(strings.TrimSpace(st.Run))
		}
	}
	if err := os.Rename(filepath.Join(dir, "spendlogs.csv"), filepath.Join(dir, "reference.csv")); err != nil {
		t.Fatal(err)
	}
	// stale says whether the config is off the blend at the tariff in
	// force at the new version's instant, over the 28 days before it.
	stale := func() bool {
		t.Helper()
		code, out, errs := runCLI(t, "", "blend", "--calls", "reference.csv", "--tariffs-overlay", wf.Env["TARIFFS"],
			"--as-of", "2026-11-03T16:00:00Z", "--write", wf.Env["CONFIG"], "--check")
		if code != exitOK && code != exitFindings {
			t.Fatalf("blend --check: exit %d: %s%s", code, out, errs)
		}
		return code == exitFindings
	}
	const hourly, weekly = "7 * * * *", "0 3 * * 1"
	runs := []struct {
		name         string
		event, cron  string
		now          string
		blends       bool
		stderr, diff string // what the run's stderr and the pull request's body hold
		staleAfter   bool
		checkFails   bool // the check job fails on the config after the run
	}{
		{name: "a pull request: no blend", event: "pull_request", now: "2026-11-01T12:00:00Z", staleAfter: true, checkFails: true},
		{name: "weekly, before the change: blend at the tariff in force, warn of the next version", event: "schedule", cron: weekly,
			now: "2026-11-02T03:00:41Z", blends: true,
			stderr: "warning: deepseek version 2026-11-04-pro-rise takes effect at 2026-11-03T16:00:00Z, after the tariff this blend prices at (2026-11-02T03:00:00Z)",
			diff:   "2026-11-03T16:00:00Z  deepseek", staleAfter: true},
		{name: "hourly, the hour before the change: nothing", event: "schedule", cron: hourly, now: "2026-11-03T15:07:12Z", staleAfter: true},
		{name: "hourly, just after the change: blend at the new version", event: "schedule", cron: hourly, now: "2026-11-03T16:52:03Z",
			blends: true, diff: "+      input_cost_per_token: "},
		{name: "hourly, three hours on: nothing", event: "schedule", cron: hourly, now: "2026-11-03T19:07:55Z"},
	}
	for _, tt := range runs {
		before := config()
		os.Remove(filepath.Join(dir, "spendlogs.csv"))
		os.Remove(filepath.Join(dir, "blend.diff"))
		r := &ciRun{t: t, event: tt.event, cron: tt.cron, now: mustInstant(t, tt.now), dir: dir, sample: sample,
			env: map[string]string{}, outputs: map[string]map[string]string{}}
		for k, v := range wf.Env {
			r.env[k] = v
		}
		r.job(&wf, "blend")
		_, err := os.Stat(filepath.Join(dir, "spendlogs.csv"))
		if exported := err == nil; exported != tt.blends {
			t.Errorf("%s: exported %v, want %v (steps run: %q)", tt.name, exported, tt.blends, r.ran)
		}
		if changed := config() != before; changed != tt.blends {
			t.Errorf("%s: config changed %v, want %v", tt.name, changed, tt.blends)
		}
		if !strings.Contains(r.stderr.String(), tt.stderr) {
			t.Errorf("%s: stderr lacks %q:\n%s", tt.name, tt.stderr, r.stderr.String())
		}
		if tt.blends {
			// The dry run showed what was then written: --as-of is
			// computed once, so both saw the same window.
			body, _ := os.ReadFile(filepath.Join(dir, "blend.diff"))
			after := strings.Split(config(), "\n")
			for _, l := range strings.Split(string(body), "\n") {
				if strings.HasPrefix(l, "+ ") && !slices.Contains(after, l[1:]) {
					t.Errorf("%s: the dry run showed %q, the config has not it:\n%s", tt.name, l, config())
				}
			}
		}
		if tt.diff != "" {
			body, _ := os.ReadFile(filepath.Join(dir, "blend.diff"))
			if !strings.Contains(string(body), tt.diff) {
				t.Errorf("%s: blend.diff lacks %q:\n%s", tt.name, tt.diff, body)
			}
		}
		if got := stale(); got != tt.staleAfter {
			t.Errorf("%s: after the run, the config is off the new tariff's blend: %v, want %v", tt.name, got, tt.staleAfter)
		}
		// The check job, the required status check: red on the config
		// without prices (LiteLLM's built-in table would decide), green on
		// every blend written.
		c := &ciRun{t: t, event: "pull_request", now: r.now, dir: dir, sample: sample, env: r.env,
			outputs: map[string]map[string]string{}, mayFail: true}
		c.job(&wf, "check")
		if len(c.ran) != 1 || (len(c.failed) > 0) != tt.checkFails {
			t.Errorf("%s: check job ran %q, failed %q; want it to fail: %v", tt.name, c.ran, c.failed, tt.checkFails)
		}
	}
}

// mustInstant parses an RFC 3339 instant of a test.
func mustInstant(t *testing.T, s string) time.Time {
	t.Helper()
	at, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return at
}
