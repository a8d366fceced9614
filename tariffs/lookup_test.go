package tariffs

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

func loadTestdata(t testing.TB) *Catalog {
	t.Helper()
	cat, ps := Load("testdata")
	if len(ps) > 0 {
		t.Fatalf("testdata tariffs: %v", ps)
	}
	return cat
}

func mustTime(t testing.TB, s string) time.Time {
	t.Helper()
	at, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatal(err)
	}
	return at
}

func TestAt(t *testing.T) {
	cat := loadTestdata(t)
	tests := []struct {
		name, model, at string
		status          Status
		version, period string
	}{
		{"peak window start is inclusive", "flash", "2026-09-01T01:00:00Z", Priced, "peak", "peak"},
		{"just before the peak window", "flash", "2026-09-01T00:59:59.999999999Z", Priced, "peak", "offpeak"},
		{"peak window end is exclusive", "flash", "2026-09-01T04:00:00Z", Priced, "peak", "offpeak"},
		{"last instant of the peak window", "flash", "2026-09-01T03:59:59.999Z", Priced, "peak", "peak"},
		{"second window", "flash", "2026-09-01T09:59:00Z", Priced, "peak", "peak"},
		{"saturday is off-peak", "flash", "2026-09-05T01:00:00Z", Priced, "peak", "offpeak"},
		{"friday afternoon in Beijing is peak", "flash", "2026-09-04T09:30:00Z", Priced, "peak", "peak"},
		{"friday 16:00 UTC is saturday in Beijing", "flash", "2026-09-04T16:00:00Z", Priced, "peak", "offpeak"},
		{"holiday on a thursday is off-peak", "flash", "2026-10-01T02:00:00Z", Priced, "peak", "offpeak"},
		{"day before the holiday is peak", "flash", "2026-09-30T02:00:00Z", Priced, "peak", "peak"},
		{"holiday starts at Beijing midnight, 16:00 UTC the day before", "flash", "2026-09-30T16:00:00Z", Priced, "peak", "offpeak"},
		{"make-up workday on a saturday is peak", "flash", "2026-10-10T01:30:00Z", Priced, "peak", "peak"},
		{"the saturday after is off-peak", "flash", "2026-10-17T01:30:00Z", Priced, "peak", "offpeak"},
		{"window crossing midnight, before start", "old", "2025-03-01T16:29:59Z", Priced, "nightly", "standard"},
		{"window crossing midnight, start", "old", "2025-03-01T16:30:00Z", Priced, "nightly", "offpeak"},
		{"window crossing midnight, after midnight", "old", "2025-03-02T00:29:59Z", Priced, "nightly", "offpeak"},
		{"window crossing midnight, end", "old", "2025-03-02T00:30:00Z", Priced, "nightly", "standard"},
		{"version switch, last instant of the old version", "old", "2025-09-05T15:59:59.999999999Z", Priced, "nightly", "standard"},
		{"version switch at the exact instant", "old", "2025-09-05T16:00:00Z", Priced, "flat", "standard"},
		{"model not yet priced", "flash", "2026-08-16T15:59:59Z", Unpriced, "flat", ""},
		{"new model priced from its first version", "flash", "2026-08-16T16:00:00Z", Priced, "peak", "offpeak"},
		{"retired at the switch", "old", "2026-08-16T16:00:00Z", Retired, "peak", ""},
		{"before any version", "old", "2024-01-01T00:00:00Z", Unpriced, "", ""},
		{"DST: winter night", "dst-model", "2026-01-15T10:59:00Z", Priced, "2026-01-01T05:00:00Z", "night"},
		{"DST: winter day starts 06:00 EST", "dst-model", "2026-01-15T11:00:00Z", Priced, "2026-01-01T05:00:00Z", "day"},
		{"DST: spring-forward day, 05:59 EDT", "dst-model", "2026-03-08T09:59:00Z", Priced, "2026-01-01T05:00:00Z", "night"},
		{"DST: spring-forward day, 06:00 EDT", "dst-model", "2026-03-08T10:00:00Z", Priced, "2026-01-01T05:00:00Z", "day"},
		{"DST: fall-back day, 05:59 EST", "dst-model", "2026-11-01T10:59:00Z", Priced, "2026-01-01T05:00:00Z", "night"},
		{"DST: fall-back day, 06:00 EST", "dst-model", "2026-11-01T11:00:00Z", Priced, "2026-01-01T05:00:00Z", "day"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := cat.Model(tt.model)
			q := m.At(mustTime(t, tt.at))
			version := ""
			if q.Version != nil {
				version = q.Version.Name
			}
			if q.Status != tt.status || version != tt.version || q.PeriodName() != tt.period {
				t.Errorf("At(%s) = %s/%s/%s, want %s/%s/%s", tt.at, q.Status, version, q.PeriodName(), tt.status, tt.version, tt.period)
			}
			at := mustTime(t, tt.at).UnixNano()
			if at < q.From || at >= q.Until {
				t.Errorf("At(%s): instant outside its own range [%d, %d)", tt.at, q.From, q.Until)
			}
		})
	}
}

func TestAtRange(t *testing.T) {
	cat := loadTestdata(t)
	tests := []struct {
		name, model, at, from, until string
	}{
		{"peak window", "flash", "2026-09-01T02:00:00Z", "2026-09-01T01:00:00Z", "2026-09-01T04:00:00Z"},
		{"off-peak ends at Beijing midnight", "flash", "2026-09-01T12:00:00Z", "2026-09-01T10:00:00Z", "2026-09-01T16:00:00Z"},
		{"range stops at a change of UTC offset", "dst-model", "2026-03-08T06:30:00Z", "2026-03-08T05:00:00Z", "2026-03-08T07:00:00Z"},
		{"range starts at the version", "flash", "2026-08-16T16:30:00Z", "2026-08-16T16:00:00Z", "2026-08-17T01:00:00Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := cat.Model(tt.model).At(mustTime(t, tt.at))
			from, until := time.Unix(0, q.From).UTC(), time.Unix(0, q.Until).UTC()
			if !from.Equal(mustTime(t, tt.from)) || !until.Equal(mustTime(t, tt.until)) {
				t.Errorf("At(%s) holds over [%s, %s), want [%s, %s)", tt.at, from.Format(time.RFC3339), until.Format(time.RFC3339), tt.from, tt.until)
			}
		})
	}
}

func TestTiers(t *testing.T) {
	cat := loadTestdata(t)
	q := cat.Model("flash").At(mustTime(t, "2026-09-01T02:00:00Z"))
	tests := []struct {
		name   string
		prompt int64
		input  string
		cache  string
	}{
		{"at the threshold takes base rates", 128000, "0.30", "0.006"},
		{"above the threshold takes the tier", 128001, "0.60", "0.60"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := q.Prices.RatesAt(q.Period, q.Prices.TierOf(tt.prompt))
			if got := r.Price(Input); !got.Equal(decimal.RequireFromString(tt.input)) {
				t.Errorf("input = %s, want %s", got, tt.input)
			}
			if got := r.Price(CacheRead); !got.Equal(decimal.RequireFromString(tt.cache)) {
				t.Errorf("cache_read = %s, want %s (falls back to input)", got, tt.cache)
			}
		})
	}
}

func TestResolve(t *testing.T) {
	cat := loadTestdata(t)
	tests := []struct{ name, want string }{
		{"flash", "flash"},
		{"EDGECO/FLASH", "flash"},
		{"openrouter/edgeco/flash", ""}, // another host: never the first party's price
		{"old-model", "old"},
		{"nope", ""},
		{"edgeco/", ""},
	}
	for _, tt := range tests {
		m, ok := cat.Resolve(tt.name)
		got := ""
		if ok {
			got = m.ID
		}
		if got != tt.want {
			t.Errorf("Resolve(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestCursorMatchesAt checks that the cached cursor agrees with the stateless
// lookup on random instants, in order and out of order.
func TestCursorMatchesAt(t *testing.T) {
	cat := loadTestdata(t)
	rng := rand.New(rand.NewPCG(1, 2))
	start := mustTime(t, "2025-01-01T00:00:00Z").UnixNano()
	span := mustTime(t, "2027-01-01T00:00:00Z").UnixNano() - start
	for _, id := range []string{"flash", "old", "dst-model"} {
		m := cat.Model(id)
		c := m.Cursor()
		at := start
		for i := 0; i < 200000; i++ {
			if i%1000 == 0 {
				at = start + rng.Int64N(span)
			} else {
				at += rng.Int64N(int64(20 * time.Minute))
			}
			tm := time.Unix(0, at)
			got, want := c.At(tm), m.quoteAt(tm)
			if cached := m.At(tm); cached != want {
				t.Fatalf("%s at %s: At %+v, computed %+v", id, tm.UTC(), cached, want)
			}
			if got.Status != want.Status || got.Version != want.Version || got.Period != want.Period {
				t.Fatalf("%s at %s: cursor %s/%s, At %s/%s", id, tm.UTC(), got.Status, got.PeriodName(), want.Status, want.PeriodName())
			}
		}
	}
}

func BenchmarkAt(b *testing.B) {
	cat := loadTestdata(b)
	m := cat.Model("flash")
	const n = 1 << 16
	instants := make([]time.Time, n)
	at := mustTime(b, "2026-09-01T00:00:00Z")
	for i := range instants {
		instants[i] = at
		at = at.Add(37 * time.Second) // sorted: about 28 days
	}
	b.Run("cursor/sorted", func(b *testing.B) {
		c := m.Cursor()
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			_ = c.At(instants[i&(n-1)])
		}
	})
	b.Run("At/sorted", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			_ = m.At(instants[i&(n-1)])
		}
	})
	b.Run("uncached", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			_ = m.quoteAt(instants[i&(n-1)])
		}
	})
}

// TestSnapshot: a model's snapshot is the date of its one dated id.
func TestSnapshot(t *testing.T) {
	tests := []struct {
		name  string
		id    string
		names []string
		want  string
	}{
		{name: "dashed date", id: "gpt-5.4", names: []string{"gpt-5.4", "openai/gpt-5.4", "gpt-5.4-2026-03-05", "openai/gpt-5.4-2026-03-05"}, want: "2026-03-05"},
		{name: "compact date", id: "claude-opus-4-7", names: []string{"claude-opus-4-7", "claude-opus-4-7-20260416"}, want: "20260416"},
		{name: "no dated id", id: "deepseek-chat", names: []string{"deepseek-chat", "deepseek/deepseek-chat"}, want: ""},
		{name: "two snapshots", id: "gpt-4o", names: []string{"gpt-4o", "gpt-4o-2024-05-13", "gpt-4o-2024-08-06"}, want: ""},
		{name: "not a date", id: "gpt-5.4", names: []string{"gpt-5.4-mini", "gpt-5.4-20261345"}, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &Model{ID: tt.id, Names: tt.names}
			if got := m.Snapshot(); got != tt.want {
				t.Errorf("Snapshot() = %q, want %q", got, tt.want)
			}
		})
	}
}
