package ledger

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"
	"github.com/tokenfare/tokenfare/internal/numtext"
)

// maxCols bounds the number of columns a schema knows, plus one slot
// (trashCol) for ignored columns. It is a power of two.
const maxCols = 64

// rowFields holds the text of one row's known columns, indexed by the
// schema's column numbers, as spans of data. An absent column and an
// empty value are both empty. Spans rather than slices keep pointer
// writes (and their GC write barriers) off the hot path.
type rowFields struct {
	data []byte
	at   [maxCols][2]int32
	// doubled tells that the text of the schema's doubled column is the
	// quoted field's as written, its quotes still doubled.
	doubled bool
}

// get returns the text of column c.
func (v *rowFields) get(c int) []byte {
	a := v.at[c&(maxCols-1)]
	return v.data[a[0]:a[1]:a[1]]
}

// has reports whether column c has text: get's length, looked at without
// making the slice, for the many columns a row mostly leaves empty.
func (v *rowFields) has(c int) bool {
	a := v.at[c&(maxCols-1)]
	return a[0] != a[1]
}

// add appends b to data as the text of column c (for sources that are not
// split in place).
func (v *rowFields) add(c int, b []byte) {
	start := len(v.data)
	v.data = append(v.data, b...)
	v.at[c&(maxCols-1)] = [2]int32{int32(start), int32(len(v.data))}
}

// column describes one column a schema understands.
type column struct {
	name     string   // name used in messages and docs
	aliases  []string // other accepted header names
	required bool     // the header must have it
}

// schema describes a row-per-call format: its columns and how a row
// becomes a Call.
type schema struct {
	format  string
	gateway Gateway
	cols    []column
	// build fills c from v. It returns why the row is rejected, or "".
	// It sets neither RequestID, Identity nor Source.
	build func(s *schema, p *rowParser, v *rowFields, c *Call) string
	// requestID is the column holding the request id.
	requestID int
	// doubled, when not 0, is 1 + the column build reads with its quotes
	// doubled when the splitter leaves them so (rowFields.doubled): a
	// JSON column read in place, not unescaped first.
	doubled int
	// metadata: the column slMetadata is LiteLLM's metadata JSON, which
	// the JSON framer reads ahead from a member of that name
	// (framedMeta).
	metadata bool
	lookup   map[string]int
}

// normName folds a header or key name for matching: case, underscores,
// spaces and dashes are ignored, so "startTime", "start_time" and
// "Start Time" are the same column.
func normName(s string) string {
	var b strings.Builder
	for _, r := range strings.TrimSpace(s) {
		switch {
		case r == '_' || r == ' ' || r == '-' || r == '"':
		case r >= 'A' && r <= 'Z':
			b.WriteRune(r + 'a' - 'A')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// indexBytes is index for a name as bytes: a name of plain ASCII is
// normalized in place, without allocating.
func (s *schema) indexBytes(name []byte) int {
	var buf [64]byte
	n := 0
	for _, c := range name {
		switch {
		case c == '_' || c == ' ' || c == '-' || c == '"':
			continue
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		case c < '!' || c > '~' || n == len(buf):
			return s.index(string(name))
		}
		buf[n] = c
		n++
	}
	if i, ok := s.lookup[string(buf[:n])]; ok {
		return i
	}
	return -1
}

func (s *schema) init() *schema {
	s.lookup = make(map[string]int)
	for i, c := range s.cols {
		s.lookup[normName(c.name)] = i
		for _, a := range c.aliases {
			s.lookup[normName(a)] = i
		}
	}
	return s
}

// index returns the column number of a header or key name, or -1.
func (s *schema) index(name string) int {
	if i, ok := s.lookup[normName(name)]; ok {
		return i
	}
	return -1
}

// mapHeader maps header positions to column numbers (trashCol = ignored) and
// checks that every required column is there. A column named twice (two
// "spend" columns, or "Spend" beside "spend") is refused: picking one would
// be a guess. A column beside one of its aliases ("team_alias" and
// "user_api_key_team_alias") is read from the first, as in JSON records.
func (s *schema) mapHeader(header []string) ([]int, error) {
	pos := make([]int, len(header))
	seen := make([]bool, len(s.cols))
	named := make(map[string]int, len(header)) // 1-based position of each known name
	for i, h := range header {
		pos[i] = trashCol
		c := s.index(h)
		if c < 0 {
			continue
		}
		n := normName(h)
		if j := named[n]; j > 0 {
			return nil, fmt.Errorf("%w: columns %d and %d are both %q; keep one", ErrBadHeader, j, i+1, h)
		}
		named[n] = i + 1
		if !seen[c] {
			pos[i], seen[c] = c, true
		}
	}
	var missing []string
	for i, c := range s.cols {
		if c.required && !seen[i] {
			missing = append(missing, fmt.Sprintf("%q", c.name))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%w: missing column %s", ErrBadHeader, strings.Join(missing, ", "))
	}
	return pos, nil
}

// doubledField returns 1 + the header position of the schema's doubled
// column (schema.doubled) in pos, from mapHeader; 0 when there is none.
func (s *schema) doubledField(pos []int) int {
	for i, c := range pos {
		if c+1 == s.doubled {
			return i + 1
		}
	}
	return 0
}

// rowParser carries per-goroutine state for building calls.
type rowParser struct {
	strs  interner
	dates [4]dateCache      // one per time column, by column number modulo 4
	urls  urlHosts          // the hosts of API bases already seen
	hosts hostCache         // the hosts of LiteLLM rows lately decided
	tags  map[string]string // request_tags as logged → Call.Tags
	// skipHolders are the holders left empty (Options.SkipHolders).
	skipHolders Holders
	// deferPairs leaves a row's key and alias, when both are logged, for
	// the reader to intern with its batch's (csvWorker.internPairs):
	// pairKey and pairAlias are then the row's, nil when it had none.
	deferPairs         bool
	pairKey, pairAlias []byte
	// framed is the row's metadata as the JSON framer read it, nil when
	// it did not: spendLogMetadata takes it when it is the very text of
	// the metadata column.
	framed *framedMeta
	meta   metaFields // spendLogMetadata's own reading
}

// badValue formats the reason for a value that does not parse.
func badValue(col, value, want string) string {
	if strings.Contains(value, "sk-") {
		// A shifted row can put a raw API key in any column: never echo it.
		return fmt.Sprintf("%s (a value that looks like an API key, not shown) is not %s", col, want)
	}
	why := "is not " + want
	switch {
	case want == "a decimal number" && numberTooLong(value):
		why = "is too long: " + numtext.ErrTooLong.Error()
	case want == "a decimal number" && exponentOutOfRange(value):
		why = "is out of range: " + numtext.ErrOutOfRange.Error()
	case strings.Contains(want, "timestamp") && before1970(value):
		why = "is before 1970: tokenfare reads instants from 1970 to 2261"
	}
	if len(value) > 64 {
		value = value[:64] + "..."
	}
	return fmt.Sprintf("%s %q %s", col, value, why)
}

// numberTooLong reports whether s has the form of a decimal number but
// more characters or digits than numtext allows.
func numberTooLong(s string) bool {
	if len(s) <= numtext.MaxChars {
		_, err := numtext.Decimal(s)
		return errors.Is(err, numtext.ErrTooLong)
	}
	digits := 0
	for i, c := range s {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c == '.' || c == 'e' || c == 'E' || ((c == '-' || c == '+') && (i == 0 || s[i-1]|0x20 == 'e')):
		default:
			return false
		}
	}
	return digits > 0
}

// exponentOutOfRange reports whether s is a decimal number whose exponent
// parseDecimal refuses, such as 1e308.
func exponentOutOfRange(s string) bool {
	if !strings.ContainsAny(s, "eE") || len(s) > 400 {
		return false
	}
	_, err := decimal.NewFromString(s)
	return err == nil
}

// before1970 reports whether s is a timestamp parseTime would read were
// it not before 1970 (in UTC).
func before1970(s string) bool {
	if len(s) < 4 || !allDigits([]byte(s[:4])) || s[0] == '+' || s[0] == '-' {
		return false
	}
	year, _ := strconv.Atoi(s[:4])
	if year > 1970 {
		return false
	}
	b := []byte(s)
	copy(b, "2000") // a leap year, as 1960 was
	_, ok := parseTime(b, nil)
	return ok
}

// intCol reads a token count column: empty is 0, negative is refused.
func intCol(s *schema, v *rowFields, c int, n *int64) string {
	b := v.get(c)
	if x, ok := plainCount(b); ok { // most counts: read here, no call
		*n = x
		return ""
	}
	return intText(s, b, c, n)
}

// intText is intCol for a count that is not plain digits.
func intText(s *schema, b []byte, c int, n *int64) string {
	x, ok := parseInt(b)
	if !ok {
		return badValue(s.cols[c].name, string(b), "an integer")
	}
	if x < 0 {
		return fmt.Sprintf("%s %d is negative", s.cols[c].name, x)
	}
	*n = x
	return ""
}

// plainCount reads b when it is empty (0) or at most 18 digits, the
// form nearly every count has; ok is false for any other text, which
// parseInt then reads or refuses. It is small enough to be inlined.
func plainCount(b []byte) (n int64, ok bool) {
	if len(b) > 18 {
		return 0, false
	}
	for _, c := range b {
		if c-'0' > 9 {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// timeCol reads an instant column; empty is the zero time unless required.
func timeCol(s *schema, p *rowParser, v *rowFields, c int, required bool, t *time.Time) string {
	b := v.get(c)
	if len(b) == 0 {
		if required {
			return s.cols[c].name + " is empty"
		}
		*t = time.Time{}
		return ""
	}
	x, ok := parseTime(b, &p.dates[c%len(p.dates)])
	if !ok {
		return badValue(s.cols[c].name, string(b), "a timestamp (2006-01-02 15:04:05.000 or RFC 3339)")
	}
	*t = x
	return ""
}

// statusCol reads success / failure; empty is success.
func statusCol(s *schema, v *rowFields, c int, st *Status) string {
	b := v.get(c)
	switch {
	case len(b) == 0 || string(b) == "success" || equalFold(b, "success"):
		*st = StatusSuccess
	case equalFold(b, "failure") || equalFold(b, "failed"):
		*st = StatusFailure
	default:
		return badValue(s.cols[c].name, string(b), "success or failure")
	}
	return ""
}

func equalFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range b {
		c := b[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}
