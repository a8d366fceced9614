package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestReconcileCalendarGaps prices calls on days the embedded DeepSeek
// calendar does not know for certain (unlisted weekdays of its provisional
// 2027) beside calls on days it does: all are priced, stderr says how many
// and on which days, and the JSON explains them.
func TestReconcileCalendarGaps(t *testing.T) {
	calls := canonicalHeader +
		canonicalRow("new-year", "2027-01-01T02:59:59Z", "") + // Fri 11:00 Beijing, a statutory holiday
		canonicalRow("makeup-sat", "2026-10-10T02:59:59Z", "") + // a make-up Saturday: weekend rules
		canonicalRow("mon", "2027-01-04T02:59:59Z", "") + // Mon 11:00: peak, provisional
		canonicalRow("tue", "2027-02-09T02:59:59Z", "") + // Tue after the Spring Festival: peak, provisional
		canonicalRow("sat", "2027-01-02T02:59:59Z", "") // a 2027 Saturday: nothing could change it
	dir := writeFiles(t, map[string]string{"calls.csv": calls})
	code, stdout, stderr := runCLI(t, "", "reconcile", "--calls", filepath.Join(dir, "calls.csv"), "-o", "json")
	if code != exitOK {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	want := "warning: 2 call(s) of deepseek on local day(s) 2027-01-04 to 2027-02-09, unlisted days of a provisional year of its holiday calendar"
	if !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
	var doc struct {
		Rows struct {
			Priced int `json:"priced"`
		} `json:"rows"`
		Explanations []struct {
			Kind     string `json:"kind"`
			Model    string `json:"model"`
			Calls    int    `json:"calls"`
			Amount   string `json:"amount"`
			FirstDay string `json:"first_day"`
			LastDay  string `json:"last_day"`
			Detail   string `json:"detail"`
		} `json:"explanations"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Rows.Priced != 5 {
		t.Errorf("priced %d calls, want all 5", doc.Rows.Priced)
	}
	var found int
	for _, x := range doc.Explanations {
		if !strings.HasPrefix(x.Kind, "calendar_") {
			continue
		}
		found++
		// Two peak calls of 1000 input and 100 output tokens:
		// 2 × (1000 × 0.30 + 100 × 1.20) / 1M = 0.00084.
		if x.Kind != "calendar_provisional" || x.Model != "deepseek-flash" || x.Calls != 2 || x.Amount != "0" ||
			x.FirstDay != "2027-01-04" || x.LastDay != "2027-02-09" || !strings.Contains(x.Detail, "official cost of 0.00084") {
			t.Errorf("explanation = %+v", x)
		}
	}
	if found != 1 {
		t.Errorf("%d calendar explanations, want 1: %+v", found, doc.Explanations)
	}
}

// TestValidateCalendarNotice runs `tariffs validate` on the embedded
// catalog on two dates: 2026-09-01 is more than 60 days before DeepSeek's
// provisional 2027, 2026-12-01 is not, and --strict then fails.
func TestValidateCalendarNotice(t *testing.T) {
	const warning = "deepseek.yaml:"
	const what = "calendar: 2027 is provisional from 2027-01-01 (in 30 day(s))"
	tests := []struct {
		name   string
		now    time.Time
		strict bool
		code   int
		warns  bool
	}{
		{"more than 60 days ahead", time.Date(2026, 9, 1, 2, 0, 0, 0, time.UTC), true, exitOK, false},
		{"within 60 days", time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC), false, exitOK, true},
		{"within 60 days, strict", time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC), true, exitFindings, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			a := &app{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, now: func() time.Time { return tt.now }}
			args := []string{"tariffs", "validate"}
			if tt.strict {
				args = append(args, "--strict")
			}
			code := runContext(context.Background(), a, args)
			got := strings.Contains(out.String(), warning) && strings.Contains(out.String(), what)
			if code != tt.code || got != tt.warns {
				t.Errorf("exit %d, warned %v; want %d, %v\nstdout:\n%s\nstderr:\n%s", code, got, tt.code, tt.warns, out.String(), errb.String())
			}
		})
	}
}
