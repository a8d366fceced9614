package ledger

import (
	"bytes"
	"compress/gzip"
	"errors"
	"strings"
	"testing"
)

// spendCSV is a small LiteLLM spend-log export of three rows; line 3 is
// the second row.
const spendCSV = "request_id,startTime,spend,prompt_tokens,completion_tokens,model\n" +
	"r1,2026-09-01 00:00:00,0.001,10,1,deepseek-flash\n" +
	"r2,2026-09-01 00:00:01,0.002,20,2,deepseek-flash\n" +
	"r3,2026-09-01 00:00:02,0.004,40,4,deepseek-flash\n"

// TestBinaryByMagicOrNULs: a file is refused as binary by its magic
// number or by NULs concentrated in its first bytes, naming its kind; a
// text export with a stray NUL is no binary file.
func TestBinaryByMagicOrNULs(t *testing.T) {
	utf16 := []byte{}
	for _, c := range []byte(spendCSV) {
		utf16 = append(utf16, c, 0) // UTF-16LE with no byte-order mark
	}
	stray := []byte(spendCSV)
	stray[60] = 0 // in the first row, past the header
	tests := []struct {
		name string
		head []byte
		want string // "" when the file is text
	}{
		{"parquet", []byte("PAR1\x15\x04\x15\x10"), "a Parquet file"},
		{"sqlite", []byte("SQLite format 3\x00\x10\x00"), "an SQLite database"},
		{"elf", []byte("\x7fELF\x02\x01\x01\x00"), "an executable (ELF)"},
		{"png", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), "a PNG image"},
		{"pdf", []byte("%PDF-1.7\n"), "a PDF document"},
		{"zip", []byte("PK\x03\x04\x14\x00\x00\x00"), "a zip archive"},
		{"xlsx", []byte("PK\x03\x04\x14\x00\x06\x00[Content_Types].xml xl/workbook.xml"), "an XLSX workbook"},
		{"nul in the first 16 bytes", []byte("request\x00id,start\n"), "binary content (1 NUL byte(s) in the first 17 bytes, the first at offset 7)"},
		{"utf-16 without a byte-order mark", utf16, "binary content"},
		{"one NUL in a hundred", append(bytes.Repeat([]byte("a"), 99), 0), "binary content (1 NUL byte(s) in the first 100 bytes, the first at offset 99)"},
		{"a stray NUL in a field", stray, ""},
		{"text", []byte(spendCSV), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := sniffBinary(tt.head)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("%v, want text", err)
			case tt.want != "" && (!errors.Is(err, ErrUnknownFormat) || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("%v, want ErrUnknownFormat naming %q", err, tt.want)
			}
		})
	}
}

// TestStrayNULCostsARow: a NUL byte inside a field of a text export,
// plain or gzip-compressed, rejects that row with its file:line and the
// other rows are read.
func TestStrayNULCostsARow(t *testing.T) {
	gz := func(b []byte) []byte {
		var buf bytes.Buffer
		w := gzip.NewWriter(&buf)
		w.Write(b)
		w.Close()
		return buf.Bytes()
	}
	withNUL := func(field string) []byte {
		return []byte(strings.Replace(spendCSV, field, field[:2]+"\x00"+field[2:], 1))
	}
	tests := []struct {
		name   string
		data   []byte
		where  string
		reason string
		calls  []string // request ids read
	}{
		{"in the model of line 3", withNUL("deepseek-flash\nr3"), "spend.csv:3", "a NUL byte at byte 37 of the row", []string{"r1", "r3"}},
		{"in the spend of line 2", withNUL("0.001"), "spend.csv:2", "a NUL byte at byte 26 of the row", []string{"r2", "r3"}},
		{"in the last row, gzip", gz(withNUL("0.004")), "spend.csv:4", "a NUL byte at byte 26 of the row", []string{"r1", "r2"}},
		// Quoted fields, as a table's dump has them: the cutter's marks
		// of the chunk tell it holds a NUL.
		{"in a row after a quoted field", []byte(strings.Replace(string(withNUL("0.002")), ",deepseek-flash\nr2", ",\"deep\"\"seek\"\nr2", 1)),
			"spend.csv:3", "a NUL byte at byte 26 of the row", []string{"r1", "r3"}},
		{"in a quoted field", []byte(strings.Replace(spendCSV, ",deepseek-flash\nr3", ",\"deep\x00\"\nr3", 1)),
			"spend.csv:3", "a NUL byte at byte 40 of the row", []string{"r1", "r3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := readAll(t, "spend.csv", tt.data, Options{})
			if res.Err != "" {
				t.Fatalf("the file is refused: %s", res.Err)
			}
			if res.Rows != 3 || len(res.Rejected) != 1 || res.Rejected[0].Where != tt.where || !strings.HasPrefix(res.Rejected[0].Reason, tt.reason) {
				t.Fatalf("%d rows, rejected %+v; want 3 rows, %s rejected: %s", res.Rows, res.Rejected, tt.where, tt.reason)
			}
			var ids []string
			for _, c := range res.Calls {
				ids = append(ids, c.RequestID)
			}
			if strings.Join(ids, " ") != strings.Join(tt.calls, " ") {
				t.Errorf("calls %v, want %v", ids, tt.calls)
			}
		})
	}
}
