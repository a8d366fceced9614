package main

import (
	"strings"
	"testing"
)

// TestSpilledExclusionIsTheUnlimitedOne charges a generated month back
// with keys left out (one by alias, one by hash) through the real
// command, with a budget of buckets so small that the other calls' groups
// spill to disk hundreds of times, and checks the output byte for byte
// against the same run held in memory, in every format, by key and
// without it: no line is folded, and the keys left out are on no line.
func TestSpilledExclusionIsTheUnlimitedOne(t *testing.T) {
	if testing.Short() {
		t.Skip("long: `make test-long` runs it")
	}
	calls, tmp := spillInput(t)
	const hash = "0000000000000000000000000000000000000000000000000000000000000011" // key-0000017
	exclude := []string{"--exclude-key", "key-0000007", "--exclude-key", hash}
	tests := []struct {
		name   string
		args   []string
		groups int  // lines at the least, so that the groups spill many times
		lines  bool // the output has the lines alone, not the account of the keys left out (CSV)
	}{
		{name: "by key and day, json", args: []string{"--by", "key,day", "-o", "json"}, groups: 5000},
		{name: "by key and day, csv", args: []string{"--by", "key,day", "-o", "csv"}, groups: 5000, lines: true},
		{name: "by key, table", args: []string{"--by", "key"}, groups: 400},
		{name: "by team and day, yaml", args: []string{"--by", "team,day", "-o", "yaml"}, groups: 5000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := append(append([]string{"chargeback", "--calls", calls, "--month", "2026-10"}, tc.args...), exclude...)
			got := spilledIsUnlimited(t, args, tc.groups)
			for _, left := range []string{"key-0000007,", "key-0000007\"", "key-0000007 ", hash} {
				if strings.Contains(got, left) {
					t.Errorf("a key left out has a line (%q):\n%.800s", left, got)
				}
			}
			if !tc.lines && !strings.Contains(strings.ToLower(got), "excluded") {
				t.Errorf("no account of the keys left out:\n%.800s", got)
			}
			noRunsLeft(t, tmp)
		})
	}
}
