package ledger

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"testing"
)

// TestSkipHoldersLeavesOnlyTheHoldersOut reads LiteLLM CSV and JSON files in full
// and with each set of Options.SkipHolders: the calls must be the same in
// every field but the holders skipped, which are left empty (a key with
// its alias, a team, a user), and the same rows rejected for the same
// reasons. The files between them carry each of the four, from flat
// columns and from metadata, and raw keys, so that leaving one out, or
// more, or too few, is seen.
func TestSkipHoldersLeavesOnlyTheHoldersOut(t *testing.T) {
	var seen [4]bool // key, alias, team, user
	for _, file := range []string{"testdata/spendlogs_table.csv", "testdata/spendlogs_flat.csv", "testdata/broken.csv",
		"../testdata/litellm/spendlogs-shapes.csv", "../testdata/litellm/spendlogs-modifiers.csv", "../testdata/sample/spendlogs-2026-10.csv",
		"testdata/spendlogs.json", "testdata/spendlogs_v2.json", "testdata/spendlogs.jsonl", "../testdata/litellm/spendlogs-shapes.json"} {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for skip := Holders(1); skip <= AllHolders; skip++ {
			blank := func(c *Call) {
				if skip.Has(HolderKey) {
					c.Key, c.KeyAlias = "", ""
				}
				if skip.Has(HolderTeam) {
					c.Team = ""
				}
				if skip.Has(HolderUser) {
					c.User = ""
				}
			}
			full := readText(t, file, data, Options{ChunkSize: 4096}, func(c *Call) {
				for i, s := range []string{c.Key, c.KeyAlias, c.Team, c.User} {
					seen[i] = seen[i] || s != ""
				}
				blank(c)
			})
			skipped := readText(t, file, data, Options{ChunkSize: 4096, SkipHolders: skip}, func(c *Call) {
				before := *c
				blank(c)
				if *c != before {
					t.Errorf("%s: skipping holders %03b, the call has key %q, alias %q, team %q, user %q",
						c.Source, skip, before.Key, before.KeyAlias, before.Team, before.User)
				}
			})
			if len(full) != len(skipped) {
				t.Fatalf("%s: %d calls and rejections read in full, %d skipping holders %03b", file, len(full), len(skipped), skip)
			}
			for i := range full {
				if full[i] != skipped[i] {
					t.Errorf("%s: row %d read in full (holders %03b blanked)\n%s\nskipping them\n%s", file, i, skip, full[i], skipped[i])
				}
			}
		}
	}
	if seen != [4]bool{true, true, true, true} {
		t.Fatalf("the files carry key, alias, team, user: %v; want all four, or the test cannot see one left out", seen)
	}
}

// readText reads data and returns each call, after edit, and each
// rejection as text, in order: a batch's strings live only until the
// next.
func readText(t *testing.T, name string, data []byte, opt Options, edit func(*Call)) []string {
	t.Helper()
	r, err := open(context.Background(), name, bytes.NewReader(data), opt)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []string
	var b Batch
	for {
		err := r.Next(context.Background(), &b)
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		for i := range b.Calls {
			c := b.Calls[i]
			c.SettleSource()
			edit(&c)
			d := c.Recorded.Decimal() // its digits, not the address of a wide one's
			c.Recorded = Amount{}
			out = append(out, fmt.Sprintf("%#v spend %s (exponent %d)", c, d, d.Exponent()))
		}
		for _, rej := range b.Rejected {
			out = append(out, fmt.Sprintf("rejected %#v", rej))
		}
	}
}
