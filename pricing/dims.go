package pricing

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tokenfare/tokenfare/ledger"
)

// Dim is a dimension calls can be grouped by.
type Dim uint8

// Grouping dimensions.
const (
	DimModel   Dim = iota // tariff model id (the logged name when unknown)
	DimGroup              // the gateway's public model name (model group)
	DimKey                // hashed API key (its alias when known)
	DimTeam               // team
	DimUser               // user
	DimDay                // calendar day of the billing instant, in the report zone
	DimHour               // hour of the billing instant, in the report zone
	DimPeriod             // tariff period (peak, offpeak, ...)
	DimVersion            // tariff version
	DimHost               // who served the call (ledger.Call.Host, or the host its model's name gave)
	DimTag                // the call's request tags (ledger.Call.Tags), as a set
	DimMeta               // a field of the key's metadata (Options.MetaField)
	numDims
)

var dimNames = [numDims]string{"model", "group", "key", "team", "user", "day", "hour", "period", "version", "host", "tag", "meta"}

// String returns the dimension's name as --by spells it.
func (d Dim) String() string { return dimNames[d] }

// AllDims returns every dimension, in the order --by lists them.
func AllDims() []Dim {
	out := make([]Dim, numDims)
	for i := range out {
		out[i] = Dim(i)
	}
	return out
}

// ParseDims reads a comma-separated list of dimensions, e.g. "model,day",
// and the field of "meta:FIELD" (a field of the key's metadata), "" when
// the list has none.
func ParseDims(s string) (dims []Dim, metaField string, err error) {
	var out []Dim
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		if field, ok := strings.CutPrefix(name, "meta:"); ok {
			if field = strings.TrimSpace(field); field == "" {
				return nil, "", fmt.Errorf("grouping %q names no field of the key's metadata", name)
			}
			name, metaField = "meta", field
		} else if name == "meta" {
			return nil, "", errors.New(`grouping "meta" needs a field of the key's metadata, e.g. meta:cost_center`)
		}
		found := false
		for i, n := range dimNames {
			if n == name {
				if slices.Contains(out, Dim(i)) {
					return nil, "", fmt.Errorf("grouping %q is given twice", name)
				}
				out = append(out, Dim(i))
				found = true
			}
		}
		if !found {
			return nil, "", fmt.Errorf("unknown grouping %q (want any of %s, meta:FIELD)", name, strings.Join(dimNames[:numDims-1], ", "))
		}
	}
	return out, metaField, nil
}

// dimSet is a set of dimensions.
type dimSet uint16

func setOf(dims []Dim) dimSet {
	var s dimSet
	for _, d := range dims {
		s |= 1 << d
	}
	return s
}

func (s dimSet) has(d Dim) bool { return s&(1<<d) != 0 }

// GroupKey names a group of calls in each dimension it was grouped by; the
// fields of the other dimensions are zero. Two groups are the same group
// when their keys are equal.
type GroupKey struct {
	Model   string    // DimModel: tariff model id, or the logged name when unknown
	Group   string    // DimGroup: the gateway's public model name
	Key     string    // DimKey: hashed API key
	Team    string    // DimTeam
	User    string    // DimUser
	Start   time.Time // DimDay, DimHour: start of the day or hour, in the report zone
	Period  string    // DimPeriod: tariff period; empty unless the calls were priced
	Outcome Outcome   // DimPeriod: what became of the calls (Priced when not grouped by period)
	Version string    // DimVersion: tariff version name; empty when none was in force
	Host    string    // DimHost: the host the call's model was looked up among; "" for the first-party lists
	Tag     string    // DimTag: the call's tags joined by ledger.TagSep; in a Chargeback, one tag
	Meta    string    // DimMeta: the value of the key's metadata field
	// Provider is the tariff provider of the group's model, in a Month's
	// ByProvider only (no dimension groups by it); "" when no tariff knows
	// the model.
	Provider string
}

// Value returns the key's value in dimension d as text: a day as
// 2006-01-02, an hour as 2006-01-02T15:04 with its UTC offset, the period
// of calls that were not priced as their outcome in parentheses.
func (k *GroupKey) Value(d Dim) string {
	switch d {
	case DimModel:
		return k.Model
	case DimGroup:
		return k.Group
	case DimKey:
		return k.Key
	case DimTeam:
		return k.Team
	case DimUser:
		return k.User
	case DimDay:
		return k.Start.Format(time.DateOnly)
	case DimHour:
		return k.Start.Format("2006-01-02T15:04Z07:00")
	case DimPeriod:
		if k.Outcome != Priced {
			return "(" + k.Outcome.String() + ")"
		}
		return k.Period
	case DimVersion:
		return k.Version
	case DimHost:
		return k.Host
	case DimTag:
		return strings.ReplaceAll(k.Tag, ledger.TagSep, ", ")
	case DimMeta:
		return k.Meta
	}
	return ""
}
