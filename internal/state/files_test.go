package state

import (
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

// csvText is the CSV text of rows, with the header when header is not nil.
func csvText(header []string, rows ...[][]string) string {
	var b strings.Builder
	w := csv.NewWriter(&b)
	if header != nil {
		w.Write(header)
	}
	for _, part := range rows {
		w.WriteAll(part)
	}
	w.Flush()
	return b.String()
}

func appendFile(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// queueParts returns the real CLIProxyAPI v7 usage-queue records (a
// retry among them shares its request id) one per line, cut in three,
// the last record of part 0 persisted twice by the collector at the end
// of part 1.
func queueParts(t *testing.T) []string {
	data, err := os.ReadFile("../../testdata/cliproxy-real/usage-queue-v7.2.99.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n")
	if !strings.HasSuffix(lines[len(lines)-1], "\n") {
		lines[len(lines)-1] += "\n"
	}
	parts := []string{strings.Join(lines[:10], ""), strings.Join(lines[10:20], "") + lines[9], strings.Join(lines[20:], "")}
	return parts
}

// rotate renames the file at from to to (read as a file renamed: it is
// refreshed in between) and starts an empty one at from.
func rotate(t *testing.T, from, to string) {
	t.Helper()
	if err := os.Rename(from, to); err != nil {
		t.Fatal(err)
	}
	writeFile(t, from, "")
}

// gzipFile compresses the file at from into to and removes from, as a
// log rotation that compresses does.
func gzipFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write(data)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	writeFile(t, to, b.String())
	if err := os.Remove(from); err != nil {
		t.Fatal(err)
	}
}

// jsonArray puts the records of JSON Lines parts in one JSON array.
func jsonArray(parts ...string) string {
	lines := strings.Split(strings.TrimSuffix(strings.Join(parts, ""), "\n"), "\n")
	return "[" + strings.Join(lines, ",\n") + "]\n"
}

// TestFileMarks: files that grow, are rotated, truncated or left with a
// half-written last line, read at each refresh only past their marks
// (with a restart between refreshes, or not), give exactly the figures
// of one full run over the same rows: official cost, recorded spend,
// quantities, calls by outcome (the call logged twice a duplicate), and
// every row read once (nothing read again: no row outside).
func TestFileMarks(t *testing.T) {
	header, parts := batches(t, 3)
	noDup := [][][]string{parts[0], parts[1][:len(parts[1])-1], parts[2]}
	queue := queueParts(t)
	cat := embedded(t)
	line := csvText(nil, parts[1][:1])
	cut := len(line) / 2
	// The export regenerated in place: sorted, a call logged late (the
	// fifth from the end of the first part) put in its place, far past
	// the first 4 KiB.
	late := len(parts[0]) - 5
	early := slices.Delete(slices.Clone(parts[0]), late, late+1)
	tests := []struct {
		name    string
		restart bool
		full    string // every row, in one file
		file    string // the name of the file written to
		reread  bool   // a format read again whole when it changes: rows read again are outside
		steps   []func(t *testing.T, dir string)
	}{
		{
			name: "a CSV export appended to", full: csvText(header, parts...), file: "spend.csv",
			steps: []func(*testing.T, string){
				func(t *testing.T, dir string) {
					writeFile(t, filepath.Join(dir, "spend.csv"), csvText(header, parts[0]))
				},
				func(t *testing.T, dir string) { appendFile(t, filepath.Join(dir, "spend.csv"), csvText(nil, parts[1])) },
				func(t *testing.T, dir string) { appendFile(t, filepath.Join(dir, "spend.csv"), csvText(nil, parts[2])) },
			},
		},
		{
			name: "a CSV export appended to, a restart between", restart: true, full: csvText(header, parts...), file: "spend.csv",
			steps: []func(*testing.T, string){
				func(t *testing.T, dir string) {
					writeFile(t, filepath.Join(dir, "spend.csv"), csvText(header, parts[0]))
				},
				func(t *testing.T, dir string) { appendFile(t, filepath.Join(dir, "spend.csv"), csvText(nil, parts[1])) },
				func(t *testing.T, dir string) { appendFile(t, filepath.Join(dir, "spend.csv"), csvText(nil, parts[2])) },
			},
		},
		{
			name: "a CSV export written again whole, longer", full: csvText(header, parts...), file: "spend.csv",
			steps: []func(*testing.T, string){
				func(t *testing.T, dir string) { writeRows(t, filepath.Join(dir, "spend.csv"), header, parts[:1]...) },
				func(t *testing.T, dir string) { writeRows(t, filepath.Join(dir, "spend.csv"), header, parts[:2]...) },
				func(t *testing.T, dir string) { writeRows(t, filepath.Join(dir, "spend.csv"), header, parts...) },
			},
		},
		{
			name: "a half-written last line", full: csvText(header, parts...), file: "spend.csv",
			steps: []func(*testing.T, string){
				func(t *testing.T, dir string) {
					writeFile(t, filepath.Join(dir, "spend.csv"), csvText(header, parts[0])+line[:cut])
				},
				func(t *testing.T, dir string) {
					appendFile(t, filepath.Join(dir, "spend.csv"), line[cut:]+csvText(nil, parts[1][1:]))
				},
				func(t *testing.T, dir string) { appendFile(t, filepath.Join(dir, "spend.csv"), csvText(nil, parts[2])) },
			},
		},
		{
			name: "a rotated file", full: csvText(header, parts...), file: "spend.csv",
			steps: []func(*testing.T, string){
				func(t *testing.T, dir string) {
					writeFile(t, filepath.Join(dir, "spend.csv"), csvText(header, parts[0]))
				},
				func(t *testing.T, dir string) {
					if err := os.Rename(filepath.Join(dir, "spend.csv"), filepath.Join(dir, "spend.csv.1")); err != nil {
						t.Fatal(err)
					}
					writeFile(t, filepath.Join(dir, "spend.csv"), csvText(header, parts[1]))
				},
				func(t *testing.T, dir string) { appendFile(t, filepath.Join(dir, "spend.csv"), csvText(nil, parts[2])) },
			},
		},
		{
			name: "a rotated file compressed", reread: true, full: strings.Join(queue, ""), file: "queue.jsonl",
			steps: []func(*testing.T, string){
				func(t *testing.T, dir string) { appendFile(t, filepath.Join(dir, "queue.jsonl"), queue[0]) },
				func(t *testing.T, dir string) {
					appendFile(t, filepath.Join(dir, "queue.jsonl"), queue[1])
					rotate(t, filepath.Join(dir, "queue.jsonl"), filepath.Join(dir, "queue.jsonl.1"))
				},
				func(t *testing.T, dir string) {
					gzipFile(t, filepath.Join(dir, "queue.jsonl.1"), filepath.Join(dir, "queue.jsonl.1.gz"))
					appendFile(t, filepath.Join(dir, "queue.jsonl"), queue[2])
				},
			},
		},
		{
			name: "an export regenerated sorted, a late call inserted", reread: true, full: csvText(header, parts[:2]...), file: "spend.csv",
			steps: []func(*testing.T, string){
				func(t *testing.T, dir string) { writeRows(t, filepath.Join(dir, "spend.csv"), header, early) },
				func(t *testing.T, dir string) { writeRows(t, filepath.Join(dir, "spend.csv"), header, parts[:2]...) },
			},
		},
		{
			name: "a truncated file", full: csvText(header, noDup...), file: "spend.csv",
			steps: []func(*testing.T, string){
				func(t *testing.T, dir string) {
					writeFile(t, filepath.Join(dir, "spend.csv"), csvText(header, noDup[0]))
				},
				func(t *testing.T, dir string) {
					writeFile(t, filepath.Join(dir, "spend.csv"), csvText(header, noDup[1]))
				},
				func(t *testing.T, dir string) { appendFile(t, filepath.Join(dir, "spend.csv"), csvText(nil, noDup[2])) },
			},
		},
		{
			name: "a folder of daily exports", full: csvText(header, parts...), file: "day-1.csv",
			steps: []func(*testing.T, string){
				func(t *testing.T, dir string) {
					writeFile(t, filepath.Join(dir, "day-1.csv"), csvText(header, parts[0]))
				},
				func(t *testing.T, dir string) {
					writeFile(t, filepath.Join(dir, "day-2.csv"), csvText(header, parts[1]))
				},
				func(t *testing.T, dir string) {
					writeFile(t, filepath.Join(dir, "day-3.csv"), csvText(header, parts[2]))
				},
			},
		},
		{
			name: "a first line not whole yet", full: strings.Join(queue, ""), file: "queue.jsonl",
			steps: []func(*testing.T, string){
				func(t *testing.T, dir string) { appendFile(t, filepath.Join(dir, "queue.jsonl"), queue[0][:40]) },
				func(t *testing.T, dir string) {
					appendFile(t, filepath.Join(dir, "queue.jsonl"), queue[0][40:]+queue[1])
				},
				func(t *testing.T, dir string) { appendFile(t, filepath.Join(dir, "queue.jsonl"), queue[2]) },
			},
		},
		{
			name: "a JSON array written again whole, longer", reread: true, full: jsonArray(queue...), file: "queue.json",
			steps: []func(*testing.T, string){
				func(t *testing.T, dir string) { writeFile(t, filepath.Join(dir, "queue.json"), jsonArray(queue[0])) },
				func(t *testing.T, dir string) {
					writeFile(t, filepath.Join(dir, "queue.json"), jsonArray(queue[:2]...))
				},
				func(t *testing.T, dir string) { writeFile(t, filepath.Join(dir, "queue.json"), jsonArray(queue...)) },
			},
		},
		{
			name: "CLIProxyAPI usage-queue records persisted as JSON Lines", restart: true, full: strings.Join(queue, ""), file: "queue.jsonl",
			steps: []func(*testing.T, string){
				func(t *testing.T, dir string) { appendFile(t, filepath.Join(dir, "queue.jsonl"), queue[0]) },
				func(t *testing.T, dir string) { appendFile(t, filepath.Join(dir, "queue.jsonl"), queue[1]) },
				func(t *testing.T, dir string) { appendFile(t, filepath.Join(dir, "queue.jsonl"), queue[2]) },
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			full := filepath.Join(t.TempDir(), "full"+filepath.Ext(tt.file))
			writeFile(t, full, tt.full)
			want := newTotals()
			e, err := runAll(cat, []ledger.Source{ledger.FileSource(full, ledger.Options{})}, fullObserver(&want))
			if err != nil {
				t.Fatal(err)
			}
			if want.calls[pricing.Duplicate] == 0 && !strings.Contains(tt.name, "truncated") {
				t.Fatalf("the test's data: no duplicate (%v)", want.calls)
			}
			dir := t.TempDir()
			statePath := filepath.Join(t.TempDir(), "state.db")
			s, err := Open(statePath)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { s.Close() }()
			feed := Feed{Name: dir, Files: func() ([]string, error) { return filepath.Glob(filepath.Join(dir, "*")) }}
			refresh := func() {
				t.Helper()
				if _, err := refresh(s, cat, pricing.Options{}, []Feed{feed}); err != nil {
					t.Fatal(err)
				}
			}
			for _, step := range tt.steps {
				step(t, dir)
				refresh()
				if tt.restart {
					s.Close()
					if s, err = Open(statePath); err != nil {
						t.Fatal(err)
					}
				}
			}
			refresh() // nothing new: changes nothing
			if got := stateTotals(t, s, cat); !got.equal(want) {
				t.Errorf("state: official %s recorded %s calls %v qty %v\nfull run: official %s recorded %s calls %v qty %v",
					got.official, got.recorded, got.calls, got.qty, want.official, want.recorded, want.calls, want.qty)
			}
			src, err := s.Source(dir)
			if err != nil {
				t.Fatal(err)
			}
			if wantRead := e.Rows().Read; tt.reread {
				if src.Rows.Read-src.Rows.Outside != wantRead {
					t.Errorf("rows read %d, of them outside (read again) %d; want %d once", src.Rows.Read, src.Rows.Outside, wantRead)
				}
			} else if src.Rows.Read != wantRead || src.Rows.Outside != 0 {
				t.Errorf("rows read %d (outside %d), want %d, each once", src.Rows.Read, src.Rows.Outside, wantRead)
			}
		})
	}
}

// TestFileMarkUnchanged: a refresh that finds every file as the last one
// left it opens none of them (a file made unreadable is not read), and a
// line read past a mark is named by its line in the file.
func TestFileMarkUnchanged(t *testing.T) {
	header, parts := batches(t, 3)
	cat := embedded(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "spend.csv")
	writeFile(t, path, csvText(header, parts[0]))
	s, err := Open(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	feed := Feed{Name: dir, Files: func() ([]string, error) { return []string{path}, nil }}
	if _, err := refresh(s, cat, pricing.Options{}, []Feed{feed}); err != nil {
		t.Fatal(err)
	}
	b, err := s.Begin(dir)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := b.planFiles(dir, []string{path})
	b.Abort()
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Files) != 0 {
		t.Errorf("unchanged file planned for reading: %+v", plan.Files)
	}
	// A bad row appended is rejected at its own line.
	row := slices.Clone(parts[1][0])
	row[slices.Index(header, "startTime")] = "yesterday"
	appendFile(t, path, csvText(nil, [][]string{row}))
	b, err = s.Begin(dir)
	if err != nil {
		t.Fatal(err)
	}
	plan, err = b.planFiles(dir, []string{path})
	b.Abort()
	if err != nil || len(plan.Files) != 1 || plan.Files[0].Source() == nil {
		t.Fatalf("grown file: plan %+v, %v", plan, err)
	}
	var rejected []ledger.Rejection
	if _, err := runAllRejected(cat, plan.Files[0].Source(), &rejected); err != nil && !Runner.NothingPriced(err) {
		t.Fatal(err)
	}
	wantLine := 2 + len(parts[0])
	if len(rejected) != 1 || rejected[0].Line != wantLine || rejected[0].File != path {
		t.Errorf("rejected %+v, want one at %s:%d", rejected, path, wantLine)
	}
}

// runAllRejected reads src in one run, gathering its rejected rows.
func runAllRejected(cat *tariffs.Catalog, src ledger.Source, out *[]ledger.Rejection) (*pricing.Engine, error) {
	return runEngine(RunInput{Catalog: cat, Sources: []ledger.Source{src},
		OnRejected: func(r ledger.Rejection) { *out = append(*out, r) }})
}
