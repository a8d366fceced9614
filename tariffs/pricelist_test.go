package tariffs

import (
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

func TestParsePriceList(t *testing.T) {
	tests := []struct {
		name, in string
		want     PriceList
		err      string
	}{
		{"the DeepSeek CNY list", "deepseek=cny", PriceList{"deepseek", "cny"}, ""},
		{"spaces around the parts", " deepseek = cny ", PriceList{"deepseek", "cny"}, ""},
		{"no equals sign", "deepseek-cny", PriceList{}, `price list "deepseek-cny" is not PROVIDER=LIST`},
		{"no list name", "deepseek=", PriceList{}, "is not PROVIDER=LIST"},
		{"a list the binary lacks", "deepseek=eur", PriceList{}, "no price list deepseek=eur in the catalog (there are: deepseek=cny)"},
		{"a provider without lists", "openai=cny", PriceList{}, "no price list openai=cny"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParsePriceList(tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error = %v, want it to contain %q", err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

// TestDeepSeekCNYList chooses the CNY list: it replaces the USD provider in
// place, prices at the Chinese page's figures, and keeps the USD list's
// windows and calendar.
func TestDeepSeekCNYList(t *testing.T) {
	usd, ps := Load("")
	if len(ps) > 0 {
		t.Fatalf("embedded catalog: %v", ps)
	}
	cny, ps := LoadLists("", []PriceList{{"deepseek", "cny"}})
	if len(ps) > 0 {
		t.Fatalf("catalog with deepseek=cny: %v", ps)
	}
	if got := len(cny.Providers); got != len(usd.Providers) {
		t.Fatalf("%d providers with the list, %d without: the list must replace, not add", got, len(usd.Providers))
	}
	m, ok := cny.Resolve("deepseek/deepseek-flash")
	if !ok || m.Provider.Currency != "CNY" {
		t.Fatalf("deepseek/deepseek-flash resolves to %v in currency %q, want the CNY list", m, m.Provider.Currency)
	}
	if other, _ := cny.Resolve("gpt-4o"); other == nil || other.Provider.Currency != "USD" {
		t.Errorf("gpt-4o must keep its USD provider")
	}

	tests := []struct {
		name, model, at, period string
		usage                   Usage
		want                    string // 元 per 1M tokens
	}{
		// Tuesday 2026-10-13 10:00 Beijing is peak; 13:00 is off-peak.
		{"flash peak output", "deepseek-flash", "2026-10-13T02:00:00Z", "peak", Output, "8"},
		{"flash off-peak cache hit", "deepseek-flash", "2026-10-13T05:00:00Z", "offpeak", CacheRead, "0.02"},
		{"pro peak cache miss", "deepseek-v4-pro", "2026-10-13T02:00:00Z", "peak", Input, "9"},
		// National Day 2026-10-01 10:00 Beijing: a holiday, off-peak all day.
		{"pro on a holiday", "deepseek-v4-pro", "2026-10-01T02:00:00Z", "offpeak", Output, "13.5"},
		{"legacy flash name at the Flash rate", "deepseek-v4-flash", "2026-10-13T02:00:00Z", "peak", Input, "2"},
		{"V4-Pro at 25 % in May", "deepseek-v4-pro", "2026-05-10T02:00:00Z", "standard", Input, "3"},
		{"launch price of Flash cache hits", "deepseek-v4-flash", "2026-04-24T12:00:00Z", "standard", CacheRead, "0.2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mm, _ := cny.Resolve(tt.model)
			q := mm.At(mustTime(t, tt.at))
			if q.Status != Priced {
				t.Fatalf("status %v, want priced", q.Status)
			}
			if got := q.PeriodName(); got != tt.period {
				t.Errorf("period %q, want %q", got, tt.period)
			}
			if got := q.Prices.For(q.Period, 0).Price(tt.usage); !got.Equal(decimal.RequireFromString(tt.want)) {
				t.Errorf("%s = %s, want %s", tt.usage, got, tt.want)
			}
		})
	}

	// Before the V4 launch the CNY list prices nothing.
	chat, _ := cny.Resolve("deepseek-chat")
	if q := chat.At(mustTime(t, "2026-01-10T00:00:00Z")); q.Status == Priced {
		t.Errorf("deepseek-chat in January 2026 is priced under the CNY list; its history starts at the V4 launch")
	}

	// Same calendar and, at every CNY version's instant, the same periods.
	u, c := providerNamed(usd, "deepseek"), providerNamed(cny, "deepseek")
	if !maps.Equal(u.Calendar.Holidays, c.Calendar.Holidays) || !maps.Equal(u.Calendar.Workdays, c.Calendar.Workdays) ||
		u.Calendar.HolidaysAs != c.Calendar.HolidaysAs || u.Calendar.WorkdaysAs != c.Calendar.WorkdaysAs {
		t.Errorf("the CNY list's calendar differs from the USD list's")
	}
	for _, cv := range c.Versions {
		uv := versionAt(u, cv.Effective)
		if uv == nil || !uv.Effective.Equal(cv.Effective) {
			t.Errorf("CNY version %s: no USD version starts at %s", cv.Name, cv.Effective.Format(time.RFC3339))
			continue
		}
		if !slices.Equal(uv.Periods, cv.Periods) || !reflect.DeepEqual(uv.Defs, cv.Defs) || uv.Zone.String() != cv.Zone.String() {
			t.Errorf("version %s: periods %v %v differ from the USD list's %v %v", cv.Name, cv.Periods, cv.Defs, uv.Periods, uv.Defs)
		}
	}
}

func providerNamed(c *Catalog, name string) *Provider {
	for _, p := range c.Providers {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// versionAt returns the version of p in force at t.
func versionAt(p *Provider, t time.Time) *Version {
	var in *Version
	for _, v := range p.Versions {
		if !v.Effective.After(t) {
			in = v
		}
	}
	return in
}
