package tariffs

import (
	"strings"
	"testing"
	"time"
)

func TestNext(t *testing.T) {
	cat := loadTestdata(t)
	tests := []struct {
		name         string
		after, until string
		want         []string // provider/version@effective models
	}{
		{name: "before every version: each provider's first", after: "2024-06-01T00:00:00Z",
			want: []string{"edgeco/nightly@2025-02-26T00:00:00Z old", "dstco/2026-01-01T05:00:00Z@2026-01-01T05:00:00Z " + dstModels(cat)}},
		{name: "between versions", after: "2025-03-01T00:00:00Z",
			want: []string{"edgeco/flat@2025-09-05T16:00:00Z old", "dstco/2026-01-01T05:00:00Z@2026-01-01T05:00:00Z " + dstModels(cat)}},
		{name: "at an effective instant: that version is in force, the next is listed", after: "2025-09-05T16:00:00Z",
			want: []string{"dstco/2026-01-01T05:00:00Z@2026-01-01T05:00:00Z " + dstModels(cat), "edgeco/peak@2026-08-16T16:00:00Z flash old"}},
		{name: "a minute before an effective instant", after: "2026-08-16T15:59:00Z",
			want: []string{"edgeco/peak@2026-08-16T16:00:00Z flash old"}},
		{name: "until includes its instant", after: "2026-08-16T13:00:00Z", until: "2026-08-16T16:00:00Z",
			want: []string{"edgeco/peak@2026-08-16T16:00:00Z flash old"}},
		{name: "until before the next version", after: "2026-08-16T13:00:00Z", until: "2026-08-16T15:59:59Z"},
		{name: "after the last version", after: "2026-08-16T16:00:00Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var until time.Time
			if tt.until != "" {
				until = mustTime(t, tt.until)
			}
			var got []string
			for _, u := range cat.Next(mustTime(t, tt.after), until) {
				var ms []string
				for _, m := range u.Models {
					ms = append(ms, m.ID)
				}
				got = append(got, u.Provider.Name+"/"+u.Version.Name+"@"+u.Version.Effective.Format(time.RFC3339)+" "+strings.Join(ms, " "))
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("Next:\ngot  %q\nwant %q", got, tt.want)
			}
		})
	}
}

// dstModels lists the models of dstco's only version, as Next gives them.
func dstModels(cat *Catalog) string {
	var ms []string
	for _, p := range cat.Providers {
		if p.Name == "dstco" {
			for _, m := range p.Models {
				ms = append(ms, m.ID)
			}
		}
	}
	return strings.Join(ms, " ")
}
