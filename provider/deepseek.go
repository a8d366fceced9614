package provider

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/tariffs"
)

// DeepSeek's platform publishes no schema for its usage export. tokenfare
// reads the CSV documented in docs/provider-usage.md: one row per bucket
// (an hour, or a whole UTC day when time is a date), model and key, with
// token columns named after the usage fields of DeepSeek's API responses.

// deepSeekColumns are the columns read, by header name; the others are
// ignored.
const (
	dsTime       = "time"
	dsKey        = "api_key"
	dsModel      = "model"
	dsRequests   = "requests"
	dsHit        = "prompt_cache_hit_tokens"
	dsMiss       = "prompt_cache_miss_tokens"
	dsOutput     = "completion_tokens"
	dsHitAmount  = "cache_hit_amount"
	dsMissAmount = "cache_miss_amount"
	dsOutAmount  = "output_amount"
	dsAmount     = "amount"
	dsCurrency   = "currency"
)

var dsRequired = []string{dsTime, dsModel, dsHit, dsMiss, dsOutput}

// dsUsageAmounts are the amount columns by usage type.
var dsUsageAmounts = []struct {
	col string
	u   tariffs.Usage
}{{dsMissAmount, tariffs.Input}, {dsHitAmount, tariffs.CacheRead}, {dsOutAmount, tariffs.Output}}

func readDeepSeek(ctx context.Context, name string, r io.Reader) (*Export, error) {
	cr := csv.NewReader(r)
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err != nil {
		return nil, &Error{Where: name, Err: fmt.Errorf("%w: %w", ErrUnknownFormat, err)}
	}
	cols := map[string]int{}
	for i, h := range header {
		cols[strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))] = i
	}
	for _, c := range dsRequired {
		if _, ok := cols[c]; !ok {
			return nil, &Error{Where: name + ":1", Err: fmt.Errorf("%w: no %q column (a DeepSeek usage export needs %s)", ErrUnknownFormat, c, strings.Join(dsRequired, ", "))}
		}
	}
	x := &Export{Name: name, Format: DeepSeekUsage}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return x, nil
		}
		if err != nil {
			where := name
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				where = fmt.Sprintf("%s:%d", name, pe.StartLine)
			}
			return nil, &Error{Where: where, Err: fmt.Errorf("%w: %w", ErrBadValue, csvReason(err))}
		}
		line, _ := cr.FieldPos(0)
		where := fmt.Sprintf("%s:%d", name, line)
		row, err := deepSeekRow(cols, rec)
		if err != nil {
			return nil, &Error{Where: where, Err: err}
		}
		row.Where = where
		x.Rows = append(x.Rows, row)
	}
}

// csvReason keeps the CSV parser's reason without the record's text, which
// may hold a raw key.
func csvReason(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func deepSeekRow(cols map[string]int, rec []string) (Row, error) {
	get := func(c string) string {
		if i, ok := cols[c]; ok && i < len(rec) {
			return strings.TrimSpace(rec[i])
		}
		return ""
	}
	keyCol, hasKey := cols[dsKey]
	for i, cell := range rec {
		if (!hasKey || i != keyCol) && strings.HasPrefix(strings.TrimSpace(cell), "sk-") {
			return Row{}, fmt.Errorf("%w: column %d holds what looks like an API key (sk-…) outside the api_key column; are the row's cells shifted? (the value is not shown)", ErrBadValue, i+1)
		}
	}
	row := Row{Format: DeepSeekUsage, Model: get(dsModel), HasTokens: true}
	var err error
	if row.Start, row.End, err = deepSeekBucket(get(dsTime)); err != nil {
		return row, err
	}
	if k := get(dsKey); k != "" {
		row.Key = ledger.HashKey(k) // the raw key goes no further
	}
	for _, f := range []struct {
		col string
		u   tariffs.Usage
	}{{dsMiss, tariffs.Input}, {dsHit, tariffs.CacheRead}, {dsOutput, tariffs.Output}, {dsRequests, tariffs.Request}} {
		s := get(f.col)
		if f.u == tariffs.Request {
			if s == "" {
				continue
			}
			row.HasRequests = true
		}
		if row.Qty[f.u], err = count(f.col, json.Number(s)); err != nil {
			return row, unquoted(f.col, "a non-negative integer")
		}
	}
	return row, deepSeekAmounts(&row, get)
}

// deepSeekAmounts reads the amounts billed: by usage type, in total, or
// both (then they must agree).
func deepSeekAmounts(row *Row, get func(string) string) error {
	sum := decimal.Zero
	for _, a := range dsUsageAmounts {
		s := get(a.col)
		if s == "" {
			continue
		}
		d, err := amount(a.col, s)
		if err != nil {
			return unquoted(a.col, "a decimal number")
		}
		row.ByUsage[a.u], row.Split, row.HasBilled = d, true, true
		sum = sum.Add(d)
	}
	row.Billed = sum
	if s := get(dsAmount); s != "" {
		d, err := amount(dsAmount, s)
		if err != nil {
			return unquoted(dsAmount, "a decimal number")
		}
		if row.Split && !d.Equal(sum) {
			return fmt.Errorf("%w: amount %s is not the sum %s of the amounts by usage type", ErrBadValue, d, sum)
		}
		row.Billed, row.HasBilled = d, true
	}
	if row.HasBilled {
		row.Currency = strings.ToUpper(get(dsCurrency))
		if row.Currency == "" {
			return fmt.Errorf("%w: an amount without currency", ErrBadValue)
		}
	}
	return nil
}

// deepSeekBucket reads the time column: a date is a whole UTC day, an
// instant starts an hour. Instants without an offset are UTC.
func deepSeekBucket(s string) (start, end time.Time, err error) {
	if d, err := time.Parse(time.DateOnly, s); err == nil {
		return d, d.Add(24 * time.Hour), nil
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02 15:04:05", "2006-01-02 15:04", "2006-01-02T15:04:05", "2006-01-02T15:04"} {
		if t, err := time.Parse(layout, s); err == nil {
			t = t.UTC()
			if t.Minute() != 0 || t.Second() != 0 {
				return start, end, unquoted(dsTime, "the start of an hour")
			}
			return t, t.Add(time.Hour), nil
		}
	}
	return start, end, unquoted(dsTime, "a date or an instant")
}

// unquoted is the error of a cell that does not hold what its column
// needs. The cell's text is left out: a DeepSeek export carries raw keys,
// and a row with a missing or extra cell would put one in any column.
func unquoted(col, what string) error {
	return fmt.Errorf("%w: the %s column is not %s (the value is not shown: the file holds raw keys)", ErrBadValue, col, what)
}
