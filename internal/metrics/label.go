package metrics

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
)

// labelValue is s with every byte that is not part of valid UTF-8
// written as \xNN (a key alias or team saved in Latin-1: "caf\xe9"), so
// the value is valid in the exposition and two names that differ stay
// apart. ok is false when a byte was escaped.
func labelValue(s string) (v string, ok bool) {
	if utf8.ValidString(s) {
		return s, true
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			fmt.Fprintf(&b, `\x%02x`, s[i])
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String(), false
}

// sender sends the metrics of one scrape: the label values made valid
// (labelValue), a metric that still cannot be made sent as invalid, so
// that the scrape reports it and serves every other. escaped is called
// with the first value escaped.
type sender struct {
	ch      chan<- prometheus.Metric
	escaped func(raw, written string)
}

func (s sender) send(d *prometheus.Desc, t prometheus.ValueType, v float64, labels ...string) {
	for i, l := range labels {
		if w, ok := labelValue(l); !ok {
			if s.escaped != nil {
				s.escaped(l, w)
			}
			labels[i] = w
		}
	}
	m, err := prometheus.NewConstMetric(d, t, v, labels...)
	if err != nil {
		m = prometheus.NewInvalidMetric(d, err)
	}
	s.ch <- m
}
