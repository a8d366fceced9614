package cli

import (
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

func decimalZero() decimal.Decimal { return decimal.Zero }

func mustDecimal(t *testing.T, s string) decimal.Decimal {
	t.Helper()
	d, err := decimal.NewFromString(s)
	if err != nil {
		t.Fatalf("%q is not a decimal: %v", s, err)
	}
	return d
}

// anyOutput marks an expected stdout or stderr a test does not check.
const anyOutput = "\x00any output"

// checkContains fails the test unless got holds want, or want is
// anyOutput. An empty want is a mistake: it would check nothing.
func checkContains(t *testing.T, stream, got, want string) {
	t.Helper()
	switch {
	case want == "":
		t.Fatalf("expected %s is empty: name a substring, or anyOutput when it does not matter", stream)
	case want == anyOutput:
	case !strings.Contains(got, want):
		t.Errorf("%s lacks %q:\n%.2000s", stream, want, got)
	}
}
