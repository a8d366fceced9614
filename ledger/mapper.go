package ledger

import "fmt"

// SpendLogMapper maps rows of LiteLLM_SpendLogs, given as column values in
// text form, to calls. It applies the same token split from metadata, key
// hashing and alias precedence as the CSV and JSON readers, which call the
// same code. Values are PostgreSQL text renderings: timestamp(3) as
// "2026-10-01 12:00:00.123", jsonb as JSON text, NULL as nil.
//
// A SpendLogMapper is not safe for concurrent use: give each goroutine its
// own.
type SpendLogMapper struct {
	pos []int // value position -> schema column, trashCol = ignored
	p   rowParser
	v   rowFields
}

// NewSpendLogMapper returns a mapper for rows whose values come in the
// order of columns, named as in the table ("startTime", "prompt_tokens",
// …; case, underscores and quotes are ignored). Unknown columns are
// ignored; a missing required column is an error wrapping ErrBadHeader.
func NewSpendLogMapper(columns []string) (*SpendLogMapper, error) {
	pos, err := spendLogSchema.mapHeader(columns)
	if err != nil {
		return nil, err
	}
	return &SpendLogMapper{pos: pos}, nil
}

// Map fills c from one row's values and returns "" when the row is a call,
// else why it is rejected. where locates the row ("file:line" or
// "request <id>") and becomes c.Source. c is overwritten either way.
func (m *SpendLogMapper) Map(values [][]byte, where string, c *Call) (reason string) {
	*c = Call{}
	if len(values) != len(m.pos) {
		return fmt.Sprintf("row has %d values, the columns are %d", len(values), len(m.pos))
	}
	m.v.data = m.v.data[:0]
	for i, b := range values {
		m.v.add(m.pos[i], b)
	}
	s := spendLogSchema
	if reason := buildChecked(s.build(s, &m.p, &m.v, c), c); reason != "" {
		*c = Call{}
		return reason
	}
	c.RequestID = string(m.v.get(s.requestID))
	c.Identity = c.RequestID
	c.IdentityHash = HashIdentity(c.Identity)
	c.Source = where
	return ""
}
