package cli

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// TestClosedPipeEndsQuietlyInEveryFormat checks the README's promise that a
// reader closing the output pipe (| head) ends the run quietly with exit 0,
// for every output format of reconcile, chargeback and price: the output
// is a real pipe whose reading end is closed before the run writes.
func TestClosedPipeEndsQuietlyInEveryFormat(t *testing.T) {
	if testing.Short() {
		t.Skip("long: `make test-long` runs it")
	}
	month := []string{"--calls", sample, "--month", "2026-10"}
	commands := []struct {
		name    string
		args    []string
		formats []string
	}{
		{"reconcile", []string{"reconcile"}, []string{"table", "csv", "json", "yaml"}},
		{"chargeback", []string{"chargeback", "--by", "team"}, []string{"table", "csv", "json", "yaml"}},
		{"price", []string{"price"}, []string{"table", "csv", "json"}},
	}
	for _, c := range commands {
		for _, format := range c.formats {
			t.Run(c.name+"/"+format, func(t *testing.T) {
				r, w, err := os.Pipe()
				if err != nil {
					t.Fatal(err)
				}
				r.Close() // the reader has gone before the first line
				defer w.Close()
				var errb bytes.Buffer
				a := &app{stdin: strings.NewReader(""), stdout: w, stderr: &errb,
					now: func() time.Time { return time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC) }}
				args := append(append(append([]string{}, c.args...), month...), "-o", format)
				// Notes about the input may come before; nothing about the pipe.
				code := runContext(context.Background(), a, args)
				if errs := errb.String(); code != exitOK || strings.Contains(errs, "Error") || strings.Contains(errs, "pipe") {
					t.Errorf("%s: exit %d, stderr %q; want exit 0 and nothing said of the pipe", strings.Join(args, " "), code, errs)
				}
			})
		}
	}
}
