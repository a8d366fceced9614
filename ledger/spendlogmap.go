package ledger

// SpendLogMapper turns rows of LiteLLM's "LiteLLM_SpendLogs" table, given
// as PostgreSQL text renderings, into calls with the same rules as the
// CSV and JSON readers: the token split, key hashing and alias precedence
// are those of a table dump. A SpendLogMapper is not safe for concurrent
// use.
type SpendLogMapper struct {
	pos []int // value position -> schema column, trashCol = ignored
	p   rowParser
	v   rowFields
}

// NewSpendLogMapper returns a mapper of rows whose values come in the
// order of columns (names as in the table, or the flat export's extra
// names such as key_alias and cached_tokens). It fails with ErrBadHeader
// when a required column is missing.
func NewSpendLogMapper(columns []string) (*SpendLogMapper, error) {
	pos, err := spendLogSchema.mapHeader(columns)
	if err != nil {
		return nil, err
	}
	return &SpendLogMapper{pos: pos}, nil
}

// Map fills c from one row: values[i] is the text of column i, nil for
// NULL. Timestamps are PostgreSQL's timestamp(3) text
// ("2026-10-01 12:00:00.123"), jsonb its text. where locates the row in
// messages. Map returns why the row is rejected, or "" when c holds a call.
func (m *SpendLogMapper) Map(values [][]byte, where string, c *Call) (reason string) {
	m.v.data = m.v.data[:0]
	m.v.at = [maxCols][2]int32{}
	for i, b := range values {
		if i < len(m.pos) && b != nil {
			m.v.add(m.pos[i], b)
		}
	}
	*c = Call{}
	reason = buildChecked(spendLogSchema.build(spendLogSchema, &m.p, &m.v, c), c)
	c.RequestID = string(m.v.get(slRequestID))
	c.Identity = c.RequestID
	c.Source = where
	return reason
}
