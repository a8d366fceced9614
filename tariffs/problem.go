package tariffs

import (
	"fmt"
	"strings"
)

// Problem is one thing wrong with a tariff file, with where it is.
type Problem struct {
	File    string
	Line    int // 0 when the problem concerns the whole file
	Msg     string
	Warning bool // true for problems that do not stop the tariff from loading
}

// Error formats the problem as "file:line: message".
func (p Problem) Error() string {
	where := p.File
	if p.Line > 0 {
		where = fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	if p.Warning {
		return fmt.Sprintf("%s: warning: %s", where, p.Msg)
	}
	return fmt.Sprintf("%s: %s", where, p.Msg)
}

// Problems is every problem found in one or more tariff files.
type Problems []Problem

// Error lists the problems, one per line.
func (ps Problems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.Error()
	}
	return strings.Join(lines, "\n")
}

// Errors returns the problems that are not warnings.
func (ps Problems) Errors() Problems {
	var out Problems
	for _, p := range ps {
		if !p.Warning {
			out = append(out, p)
		}
	}
	return out
}
