package reports

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/tokenfare/tokenfare/ledger"
)

// streamingRead prints, per sheet, the rows openpyxl's read-only mode
// yields: a streaming reader that trusts each sheet's <dimension>.
const streamingRead = `
import json, sys, openpyxl
wb = openpyxl.load_workbook(sys.argv[1], read_only=True)
print(json.dumps({ws.title: sum(1 for _ in ws.iter_rows(values_only=True)) for ws in wb.worksheets}))
`

// TestStreamingReaderSeesEveryRow reads the workbook as a streaming
// reader does (openpyxl, read-only) and checks it sees every row of every
// sheet, as excelize reads them.
func TestStreamingReaderSeesEveryRow(t *testing.T) {
	const python = "/usr/bin/python3"
	if err := exec.Command(python, "-c", "import openpyxl").Run(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s with openpyxl is required under CI (Debian package python3-openpyxl): %v", python, err)
		}
		t.Skipf("%s with openpyxl not available (install python3-openpyxl): %v", python, err)
	}
	first := flashCall("a", "2026-09-01T02:00:00Z", "flash", "t", "u")
	second := flashCall("b", "2026-09-01T03:00:00Z", "flash", "t2", "u2")
	m, _ := september(t, []ledger.Call{first, second})
	var buf bytes.Buffer
	if err := WriteWorkbook(&buf, m, Provenance{Produced: time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC), Program: "tokenfare test"}, Extras{}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "month.xlsx")
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(python, "-c", streamingRead, path).Output()
	if err != nil {
		t.Fatalf("openpyxl: %v", err)
	}
	var got map[string]int
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("openpyxl output %q: %v", out, err)
	}
	f, err := excelize.OpenReader(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range f.GetSheetList() {
		rows, err := f.GetRows(name)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) < 2 || got[name] < len(rows) {
			t.Errorf("%s: the streaming reader sees %d row(s), the sheet has %d", name, got[name], len(rows))
		}
	}
}
