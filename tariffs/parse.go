package tariffs

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"
	"github.com/tokenfare/tokenfare/internal/numtext"
	"github.com/tokenfare/tokenfare/internal/yamlin"
	"gopkg.in/yaml.v3"
)

// Parse reads one provider's tariff file. It returns every problem found,
// each with the file and line; the provider is nil when any problem is not
// a warning.
func Parse(file string, data []byte) (*Provider, Problems) {
	// The nodes first, undecoded: their aliases are checked before
	// anything is built from them.
	var root yaml.Node
	if yaml.Unmarshal(data, &root) == nil {
		var ae *yamlin.AliasError
		if errors.As(yamlin.Aliases(&root), &ae) {
			return nil, Problems{{File: file, Line: ae.Line, Msg: ae.Error()}}
		}
	}
	var raw rawFile
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	c := converter{file: file, noPrices: map[*Version]bool{}}
	if err := dec.Decode(&raw); err != nil {
		var te *yaml.TypeError
		switch {
		case errors.Is(err, io.EOF):
			return nil, Problems{{File: file, Msg: "file is empty"}}
		case !errors.As(err, &te):
			return nil, decodeProblems(file, err) // syntax: nothing more can be read
		}
		// Unknown keys and misplaced values: what was read is still checked.
		c.problems = decodeProblems(file, err)
		c.refused = map[int]bool{}
		for _, p := range c.problems {
			c.refused[p.Line] = true
		}
	}
	c.root = root
	p := c.provider(&raw)
	sort.SliceStable(c.problems, func(i, j int) bool { return c.problems[i].Line < c.problems[j].Line })
	if len(c.problems.Errors()) > 0 {
		return nil, c.problems
	}
	return p, c.problems
}

var yamlLine = regexp.MustCompile(`line (\d+): (.*)`)
var unknownField = regexp.MustCompile(`field (\S+) not found in type \S+`)

// wrongKind rewrites the decoder's "cannot unmarshal !!int `5` into
// []tariffs.rawSource" without the names of Go types.
var wrongKind = regexp.MustCompile(`cannot unmarshal !!(\w+)( .*)? into (\[\])?(\S+)$`)

func kindMessage(m []string) string {
	given := strings.TrimSpace(m[2])
	switch m[1] {
	case "map":
		given = "a mapping"
	case "seq":
		given = "a list"
	}
	switch {
	case m[3] != "":
		return "expected a list, not " + given
	case strings.HasPrefix(m[4], "tariffs.raw") || strings.HasPrefix(m[4], "map"):
		return "expected a mapping of keys to values, not " + given
	}
	return "expected a single value, not " + given
}

// decodeProblems turns a YAML decoding error into located problems.
func decodeProblems(file string, err error) Problems {
	var ps Problems
	for _, line := range strings.Split(err.Error(), "\n") {
		m := yamlLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		msg := unknownField.ReplaceAllString(m[2], "unknown key \"$1\"")
		msg = strings.TrimPrefix(msg, "yaml: ")
		if k := wrongKind.FindStringSubmatch(msg); k != nil {
			msg = kindMessage(k)
		}
		ps = append(ps, Problem{File: file, Line: n, Msg: msg})
	}
	if len(ps) == 0 {
		ps = Problems{{File: file, Line: 1, Msg: strings.TrimPrefix(err.Error(), "yaml: ")}}
	}
	return ps
}

// The range of a price: written with an exponent such as 1e-7 or 0e99999999,
// a price outside it would make every sum slow for no real tariff's sake.
const (
	maxPricePlaces = 24
	maxPriceDigits = 12
)

// converter turns raw file contents into domain types, collecting problems.
type converter struct {
	file     string
	root     yaml.Node // the document, for the lines of values that are absent or null
	problems Problems
	refused  map[int]bool      // lines of values the decoder refused (already reported)
	noPrices map[*Version]bool // versions whose prices the decoder refused
	models   map[string]*Model
	order    []*Model // the models, in file order
}

// lineOf returns the line of the node at path (mapping keys and sequence
// indexes) in the document, or of the deepest node on the way when there
// is no such node; 1 at least.
func (c *converter) lineOf(path ...any) int {
	n, _ := c.nodeAt(path...)
	return max(n.Line, 1)
}

// keyLine returns the line of top-level key name, or 1 without one.
func (c *converter) keyLine(name string) int {
	n, _ := c.nodeAt()
	for i := 0; n.Kind == yaml.MappingNode && i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == name {
			return n.Content[i].Line
		}
	}
	return 1
}

// refusedAt reports whether the decoder refused the value at path (and
// reported it): checks of what that value should have held are moot.
func (c *converter) refusedAt(path ...any) bool {
	n, found := c.nodeAt(path...)
	return found && c.refused[n.Line]
}

// nodeAt returns the node at path, or the deepest node on the way and
// found = false.
func (c *converter) nodeAt(path ...any) (n *yaml.Node, found bool) {
	n = &c.root
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	for _, step := range path {
		var next *yaml.Node
		switch s := step.(type) {
		case string:
			for i := 0; n.Kind == yaml.MappingNode && i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == s {
					next = n.Content[i+1]
				}
			}
		case int:
			if n.Kind == yaml.SequenceNode && s < len(n.Content) {
				next = n.Content[s]
			}
		}
		if next == nil {
			return n, false
		}
		n = next
	}
	return n, true
}

func (c *converter) errorf(line int, format string, args ...any) {
	c.problems = append(c.problems, Problem{File: c.file, Line: line, Msg: fmt.Sprintf(format, args...)})
}

func (c *converter) warnf(line int, format string, args ...any) {
	c.problems = append(c.problems, Problem{File: c.file, Line: line, Msg: fmt.Sprintf(format, args...), Warning: true})
}

// required reports a missing value and returns whether s is set. A value
// the decoder refused is not set, and was reported already.
func (c *converter) required(s scalar, line int, what string) bool {
	if s.bad {
		return false
	}
	if !s.Set || s.Value == "" {
		c.errorf(line, "%s is required", what)
		return false
	}
	return true
}

func (c *converter) provider(raw *rawFile) *Provider {
	p := &Provider{File: c.file, Name: raw.Provider.Value, Currency: raw.Currency.Value, Line: max(raw.Provider.Line, 1)}
	c.required(raw.Provider, 1, "provider")
	p.DisplayName, p.ServiceName = displayNames(raw)
	c.hosts(p, raw.Hosts)
	if c.required(raw.Currency, 1, "currency") && !isCurrency(raw.Currency.Value) {
		c.errorf(raw.Currency.Line, "currency %q is not a three-letter ISO 4217 code", raw.Currency.Value)
	}
	p.Zone = c.zone(raw.Timezone, 1, "timezone")
	switch {
	case raw.BillingTime.bad: // reported by the decoder
	case raw.BillingTime.Set:
		b, err := ParseBillingTime(raw.BillingTime.Value)
		if err != nil {
			c.errorf(raw.BillingTime.Line, "%v", err)
		}
		p.Billing = b
	default:
		c.errorf(1, "billing_time is required (start, first_token or end)")
	}
	if len(raw.Sources) == 0 && !c.refusedAt("sources") {
		c.errorf(1, "sources: at least one source is required")
	}
	for _, s := range raw.Sources {
		p.Sources = append(p.Sources, c.source(s))
	}
	c.failedCalls(p, raw.FailedCalls)
	c.modelsOf(p, raw.Models)
	p.Calendar = c.calendar(raw.Calendar)
	if raw.Calendar != nil {
		for _, d := range append(raw.Calendar.Holidays, raw.Calendar.Workdays...) {
			c.sourceKind(p, d.Source, "calendar "+d.Date.Value)
		}
	}
	for i := range raw.Versions {
		if v, placed := c.version(p, &raw.Versions[i], i); placed {
			p.Versions = append(p.Versions, v)
		}
	}
	c.checkVersions(p, raw.Versions)
	for _, m := range p.Models {
		m.buildSpans()
	}
	return p
}

// displayNames returns the provider's display and service names: as the
// file gives them, else its id and the id followed by " API".
func displayNames(raw *rawFile) (display, service string) {
	display, service = raw.DisplayName.Value, raw.ServiceName.Value
	if display == "" {
		display = raw.Provider.Value
	}
	if service == "" {
		service = display + " API"
	}
	return display, service
}

// hostName is how a host is spelled in a tariff file.
var hostName = regexp.MustCompile(`^[a-z0-9][a-z0-9_.-]*$`)

// hosts reads the hosts key: the hosts whose calls the file prices. A
// file without it prices the host its provider name names. A host
// tokenfare does not recognise is a warning, unless it looks like a known
// host misspelled, which is an error.
func (c *converter) hosts(p *Provider, raw *[]scalar) {
	n, given := c.nodeAt("hosts")
	if raw == nil && !given {
		if h := NormalizeHost(p.Name); h == UnknownHost {
			c.errorf(p.Line, "provider %q: %s; add hosts: to name the host this file prices", p.Name, reservedHost)
		} else if h != "" {
			p.Hosts = []string{h}
		}
		return
	}
	p.HostsGiven = true
	if raw == nil {
		raw = &[]scalar{} // hosts: with no value
	}
	if len(*raw) == 0 && !c.refusedAt("hosts") {
		c.errorf(c.lineOf("hosts"), "hosts: list at least one host, or leave the key out to price the host named by provider")
		return
	}
	for _, item := range n.Content { // the decoder drops null items
		if item.Kind == yaml.ScalarNode && item.Tag == "!!null" {
			c.errorf(item.Line, "host is required (an empty item in hosts)")
		}
	}
	seen := map[string]int{}
	for _, s := range *raw {
		if !c.required(s, s.Line, "host") {
			continue
		}
		h := s.Value
		if first, dup := seen[h]; dup {
			c.errorf(s.Line, "host %q is listed twice (first at line %d)", h, first)
			continue
		}
		seen[h] = s.Line
		if c.checkHost(h, s.Line) {
			p.Hosts = append(p.Hosts, h)
		}
	}
}

// reservedHost says why no tariff file may price UnknownHost.
const reservedHost = `host "unknown" is reserved for calls whose record does not name their host, which no tariff prices`

// checkHost reports a host name that cannot be right and returns whether
// h is usable.
func (c *converter) checkHost(h string, line int) bool {
	if NormalizeHost(h) == UnknownHost {
		c.errorf(line, "%s", reservedHost)
		return false
	}
	if KnownHost(h) {
		return true
	}
	if n := NormalizeHost(h); KnownHost(n) {
		c.errorf(line, "host %q is written %q in tariff files", h, n)
		return false
	}
	if !hostName.MatchString(h) {
		c.errorf(line, "host %q: a host name is lowercase letters, digits and _ . - (known hosts: %s)", h, strings.Join(KnownHosts(), ", "))
		return false
	}
	if near := nearHost(h); near != "" {
		c.errorf(line, "unknown host %q: did you mean %q?", h, near)
		return false
	}
	c.warnf(line, "host %q is not one tokenfare recognises in gateway logs (known: %s); only calls a gateway logs with that provider name are priced by this file",
		h, strings.Join(KnownHosts(), ", "))
	return true
}

// nearHost returns the known host h is most likely a misspelling of: at
// most two edits away, or one with "_" and "-" swapped or dropped; "".
func nearHost(h string) string {
	squash := strings.NewReplacer("_", "", "-", "", ".", "")
	for _, k := range KnownHosts() {
		if squash.Replace(k) == squash.Replace(h) || editDistance(k, h) <= 2 {
			return k
		}
	}
	return ""
}

// editDistance is the Levenshtein distance between a and b (bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func isCurrency(s string) bool {
	if len(s) != 3 {
		return false
	}
	for _, r := range s {
		if r < 'A' || r > 'Z' {
			return false
		}
	}
	return true
}

func (c *converter) zone(s scalar, line int, what string) *time.Location {
	if !c.required(s, line, what) {
		return time.UTC
	}
	loc, err := time.LoadLocation(s.Value)
	if err != nil || s.Value == "Local" {
		c.errorf(s.Line, "%s %q is not an IANA time zone", what, s.Value)
		return time.UTC
	}
	return loc
}

func (c *converter) source(s rawSource) Source {
	if c.required(s.URL, s.URL.Line, "source url") && !strings.Contains(s.URL.Value, "://") {
		c.errorf(s.URL.Line, "source url %q is not a URL", s.URL.Value)
	}
	if c.required(s.Checked, s.URL.Line, "source checked date") {
		if _, err := ParseDate(s.Checked.Value); err != nil {
			c.errorf(s.Checked.Line, "checked: %v", err)
		}
	}
	src := Source{URL: s.URL.Value, Checked: s.Checked.Value, Note: s.Note.Value}
	switch {
	case s.Kind.bad: // reported by the decoder
	case !s.Kind.Set:
		c.warnf(s.URL.Line, "source %s has no kind (official, changelog or secondary): reports show it as unstated", s.URL.Value)
	default:
		k, err := ParseSourceKind(s.Kind.Value)
		if err != nil {
			c.errorf(s.Kind.Line, "%v", err)
		}
		src.Kind = k
	}
	return src
}

// sourceKind returns the kind of the listed source s names. A source the
// file's sources do not list has no kind, which is a warning: the kind of
// every rate must be known from the one place kinds are given.
func (c *converter) sourceKind(p *Provider, s scalar, what string) SourceKind {
	if !s.Set || s.bad || s.Value == "" {
		return SourceUnstated
	}
	k, listed := p.SourceKindOf(s.Value)
	if !listed {
		c.warnf(s.Line, "%s: source %s is not listed under sources, so its kind is unknown", what, s.Value)
	}
	return k
}

func (c *converter) modelsOf(p *Provider, raws []rawModel) {
	c.models = map[string]*Model{}
	names := map[string]string{}
	for _, r := range raws {
		if !c.required(r.ID, r.ID.Line, "model id") {
			continue
		}
		if c.models[r.ID.Value] != nil {
			c.errorf(r.ID.Line, "model %q is defined twice", r.ID.Value)
			continue
		}
		m := &Model{ID: r.ID.Value, Note: r.Note.Value, Replaces: r.Replaces.Value, Provider: p, Line: r.ID.Line}
		if m.Replaces == m.ID {
			c.errorf(r.Replaces.Line, "model %q replaces itself", m.ID)
		}
		for _, n := range append([]scalar{r.ID}, r.Names...) {
			key := strings.ToLower(n.Value)
			if h := HostOfPrefix(key); h != "" && p.FirstParty() && !slices.Contains(p.Hosts, h) {
				c.errorf(n.Line, "name %q starts with host %q, which this file does not price (hosts: %s): a file with hosts: [%s] prices those calls",
					n.Value, h, strings.Join(p.Hosts, ", "), h)
				continue
			}
			if owner, ok := names[key]; ok && owner != m.ID {
				c.errorf(n.Line, "name %q is claimed by models %q and %q", n.Value, owner, m.ID)
				continue
			} else if ok {
				continue
			}
			names[key] = m.ID
			m.Names = append(m.Names, n.Value)
			m.nameLines = append(m.nameLines, n.Line)
		}
		c.models[m.ID] = m
		c.order = append(c.order, m)
		p.Models = append(p.Models, m)
	}
}

func (c *converter) calendar(raw *rawCalendar) Calendar {
	cal := Calendar{HolidaysAs: time.Sunday, WorkdaysAs: time.Monday}
	if raw == nil {
		return cal
	}
	cal.Line = c.keyLine("calendar")
	cal.HolidaysAs = c.weekday(raw.HolidaysAs, time.Sunday)
	cal.WorkdaysAs = c.weekday(raw.WorkdaysAs, time.Monday)
	cal.Holidays = c.days(raw.Holidays, "holiday")
	cal.Workdays = c.days(raw.Workdays, "workday")
	for _, days := range []map[Date]string{cal.Holidays, cal.Workdays} {
		for d := range days {
			cal.cover(d.Year())
		}
	}
	cal.Provisional = c.provisional(raw.Provisional)
	for y := range cal.Provisional {
		cal.cover(y)
	}
	for _, d := range raw.Workdays {
		if date, err := ParseDate(d.Date.Value); err == nil {
			if _, both := cal.Holidays[date]; both {
				c.errorf(d.Date.Line, "date %s is both a holiday and a make-up workday", date)
			}
		}
	}
	return cal
}

// provisional reads the calendar's provisional years.
func (c *converter) provisional(raws []scalar) map[int]bool {
	out := map[int]bool{}
	for _, s := range raws {
		if s.bad {
			continue
		}
		y, err := strconv.Atoi(s.Value)
		switch {
		case err != nil || y < minYear || y > maxYear:
			c.errorf(s.Line, "provisional year %q is not a year from %d to %d", s.Value, minYear, maxYear)
		case out[y]:
			c.errorf(s.Line, "provisional year %d is listed twice", y)
		default:
			out[y] = true
		}
	}
	return out
}

func (c *converter) weekday(s scalar, def time.Weekday) time.Weekday {
	if !s.Set || s.bad {
		return def
	}
	wd, err := ParseWeekday(s.Value)
	if err != nil {
		c.errorf(s.Line, "%v", err)
	}
	return wd
}

func (c *converter) days(raws []rawDay, kind string) map[Date]string {
	out := map[Date]string{}
	for _, r := range raws {
		if !c.required(r.Date, r.Date.Line, kind+" date") {
			continue
		}
		d, err := ParseDate(r.Date.Value)
		if err != nil {
			c.errorf(r.Date.Line, "%s: %v", kind, err)
			continue
		}
		if _, dup := out[d]; dup {
			c.errorf(r.Date.Line, "%s %s is listed twice", kind, d)
		}
		out[d] = r.Name.Value
	}
	return out
}

func (c *converter) decimal(s scalar, what string) (decimal.Decimal, bool) {
	d, err := numtext.Decimal(strings.TrimSpace(s.Value))
	if errors.Is(err, numtext.ErrTooLong) {
		c.errorf(s.Line, "%s (%d characters) is too long: %v", what, len(s.Value), err)
		return decimal.Zero, false
	}
	if errors.Is(err, numtext.ErrOutOfRange) {
		c.errorf(s.Line, "%s %q is out of range: %v", what, s.Value, err)
		return decimal.Zero, false
	}
	if err != nil || s.Value == "" {
		c.errorf(s.Line, "%s %q is not a decimal number", what, s.Value)
		return decimal.Zero, false
	}
	if d.IsNegative() {
		c.errorf(s.Line, "%s %s is negative", what, s.Value)
		return decimal.Zero, false
	}
	if d.IsZero() {
		return decimal.Zero, true // "0e64" too: a zero's exponent would only slow sums
	}
	if d.Exponent() < -maxPricePlaces || int64(d.NumDigits())+int64(d.Exponent()) > maxPriceDigits {
		c.errorf(s.Line, "%s %q is out of range (at most %d decimal places, below 10^%d)", what, s.Value, maxPricePlaces, maxPriceDigits)
		return decimal.Zero, false
	}
	return d, true
}

// ScalarDecimal reads a number from the text of a YAML scalar exactly,
// never through a float; underscores between digits, as YAML 1.1 allows,
// are dropped.
func ScalarDecimal(n *yaml.Node) (decimal.Decimal, error) {
	if n == nil || n.Kind != yaml.ScalarNode {
		return decimal.Decimal{}, errors.New("not a number")
	}
	if len(n.Value) > numtext.MaxChars {
		return decimal.Decimal{}, fmt.Errorf("a number of %d characters is too long: %w", len(n.Value), numtext.ErrTooLong)
	}
	d, err := numtext.Decimal(strings.ReplaceAll(n.Value, "_", ""))
	if errors.Is(err, numtext.ErrTooLong) {
		return decimal.Decimal{}, fmt.Errorf("%.40q... is too long: %w", n.Value, err)
	}
	if errors.Is(err, numtext.ErrOutOfRange) {
		return decimal.Decimal{}, fmt.Errorf("%q is out of range: %w", n.Value, err)
	}
	if err != nil {
		return decimal.Decimal{}, fmt.Errorf("%q is not a number", n.Value)
	}
	return d, nil
}
