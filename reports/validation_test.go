package reports

import (
	"strings"
	"testing"

	"github.com/tokenfare/tokenfare/tariffs"
)

// TestWriteValidation writes problems, escaped, and the summary line only
// for a validation that passed.
func TestWriteValidation(t *testing.T) {
	cat, ps := tariffs.New([]*tariffs.Provider{
		{Name: "a", Models: []*tariffs.Model{{ID: "a1"}, {ID: "a2"}}, Versions: []*tariffs.Version{{}, {}, {}}},
		{Name: "b", Models: []*tariffs.Model{{ID: "b1"}}, Versions: []*tariffs.Version{{}}},
	})
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	warn := tariffs.Problem{File: "a.yaml", Line: 3, Msg: "name \"x\x1b[2Jy\"", Warning: true}
	bad := tariffs.Problem{File: "b.yaml", Line: 7, Msg: "price is negative"}
	tests := []struct {
		name string
		v    Validation
		want string
	}{
		{"passed with a warning: files are not providers", Validation{Problems: tariffs.Problems{warn}, Files: 3, Catalog: cat, Passed: true},
			"a.yaml:3: warning: name \"x\\x1b[2Jy\"\nok: 3 file(s), 2 provider(s), 3 model(s), 4 version(s), 1 warning(s)\n"},
		{"passed clean", Validation{Files: 2, Catalog: cat, Passed: true},
			"ok: 2 file(s), 2 provider(s), 3 model(s), 4 version(s)\n"},
		{"failed: no summary", Validation{Problems: tariffs.Problems{bad, warn}, Files: 2, Catalog: cat},
			"b.yaml:7: price is negative\na.yaml:3: warning: name \"x\\x1b[2Jy\"\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			if err := WriteValidation(&b, tt.v); err != nil {
				t.Fatal(err)
			}
			if b.String() != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", b.String(), tt.want)
			}
		})
	}
}
