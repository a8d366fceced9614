package ledger

import (
	"bytes"
	"fmt"
)

// fileKind is a kind of file recognised by its first bytes.
type fileKind struct {
	name  string // as messages name it
	magic string // the bytes the file starts with
	hint  string // what to give instead
}

// binaryKinds are files that are not call logs but are given as such
// often enough to deserve their name in the error: a workbook or a zip
// read as CSV would otherwise be "separated by semicolons".
var binaryKinds = []fileKind{
	{"a zip archive", "PK\x03\x04", "unzip it and give the CSV or JSON inside"},
	{"an empty zip archive", "PK\x05\x06", "unzip it and give the CSV or JSON inside"},
	{"a PDF document", "%PDF-", "export the calls as CSV or JSON"},
	{"an XLS workbook (or another OLE2 document)", "\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "save the sheet as CSV (comma-separated)"},
	{"a bzip2 archive", "BZh", "decompress it (bunzip2); gzip is read as is"},
	{"an xz archive", "\xfd7zXZ\x00", "decompress it (unxz); gzip is read as is"},
	{"a zstd archive", "\x28\xb5\x2f\xfd", "decompress it (unzstd); gzip is read as is"},
	{"a 7-Zip archive", "7z\xbc\xaf\x27\x1c", "extract the CSV or JSON inside"},
	{"a Parquet file", "PAR1", "export the calls as CSV or JSON"},
	{"an SQLite database", "SQLite format 3\x00", "export the calls as CSV or JSON"},
	{"a PNG image", "\x89PNG\r\n\x1a\n", "give the call log itself"},
	{"a JPEG image", "\xff\xd8\xff", "give the call log itself"},
	{"an executable (ELF)", "\x7fELF", "give the call log itself"},
	{"UTF-16 text", "\xff\xfe", "save it as UTF-8"},
	{"UTF-16 text", "\xfe\xff", "save it as UTF-8"},
}

// nulWindow is how many first bytes are looked at for NULs, and nulHead
// how many at the very start must hold none: a binary file of a kind not
// listed has NULs early and often, a text export with one bad byte has
// one, somewhere.
const (
	nulWindow = 4096
	nulHead   = 16
)

// sniffBinary names the kind of a file that cannot be a call log, from
// its first bytes, or returns nil: a listed magic number, or NULs
// concentrated in the first bytes (one in the first 16, or at least one
// in a hundred of the first 4 KiB). A stray NUL elsewhere is text with a
// bad byte: the readers reject the row that holds it.
func sniffBinary(head []byte) error {
	for _, k := range binaryKinds {
		if bytes.HasPrefix(head, []byte(k.magic)) {
			name := k.name
			if k.magic == "PK\x03\x04" && bytes.Contains(head, []byte("xl/")) {
				name, k.hint = "an XLSX workbook (a zip archive)", "save the sheet as CSV (comma-separated), or export the calls from the gateway"
			}
			return fmt.Errorf("%w: this is %s, not a call log; %s", ErrUnknownFormat, name, k.hint)
		}
	}
	if len(head) >= 262 && string(head[257:262]) == "ustar" {
		return fmt.Errorf("%w: this is a tar archive, not a call log; extract the CSV or JSON inside", ErrUnknownFormat)
	}
	w := head[:min(len(head), nulWindow)]
	i := bytes.IndexByte(w, 0)
	if i < 0 {
		return nil
	}
	if n := bytes.Count(w, []byte{0}); i < nulHead || n*100 >= len(w) {
		return fmt.Errorf("%w: binary content (%d NUL byte(s) in the first %d bytes, the first at offset %d), not a text call log",
			ErrUnknownFormat, n, len(w), i)
	}
	return nil
}
