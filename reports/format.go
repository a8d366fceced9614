package reports

import (
	"fmt"
	"io"
	"strings"

	"github.com/tokenfare/tokenfare/reports/textout"
)

// Format is an output format.
type Format uint8

// Output formats.
const (
	Table Format = iota // aligned columns for people
	CSV                 // comma-separated values with a header row
	JSON                // indented JSON (one object per line for per-call output)
	YAML                // the JSON document as YAML
	numFormats
)

var formatNames = [numFormats]string{"table", "csv", "json", "yaml"}

// String returns the format's name as -o spells it.
func (f Format) String() string { return formatNames[f] }

// ParseFormat reads a format as -o spells it, among those offered.
func ParseFormat(s string, offered ...Format) (Format, error) {
	names := make([]string, len(offered))
	for i, f := range offered {
		if f.String() == s {
			return f, nil
		}
		names[i] = f.String()
	}
	return 0, fmt.Errorf("unknown output format %q (want %s)", s, strings.Join(names, ", "))
}

// DisplayPlaces is how many decimals money has in tables; CSV, JSON and
// YAML keep every digit.
const DisplayPlaces = 4

// errFormat is the error of a result asked for in a format it is not
// rendered in.
func errFormat(what string, f Format) error {
	return fmt.Errorf("%s cannot be written as %s", what, f)
}

// asDoc is the document of a value that is its own.
func asDoc[T any](v T) any { return v }

// writeAs writes v (what names it in errors) in format f: as a table or CSV
// by the given writers, as JSON or YAML from the document doc makes of it.
func writeAs[T any](w io.Writer, f Format, what string, v T, table, csv func(io.Writer, T) error, doc func(T) any) error {
	switch f {
	case Table:
		return table(&textout.Escaping{W: w}, v)
	case CSV:
		return csv(w, v)
	case JSON:
		return writeJSON(w, doc(v))
	case YAML:
		return writeYAML(w, doc(v))
	}
	return errFormat(what, f)
}
