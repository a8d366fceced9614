package ledger

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestSpendLogMapperMatchesCSVReader maps every row of the table dump
// fixture through SpendLogMapper and checks it yields what the CSV reader
// reads from the same file: the same calls with the same fields, and the
// same rows rejected for the same reasons.
func TestSpendLogMapperMatchesCSVReader(t *testing.T) {
	for _, file := range []string{"testdata/spendlogs_table.csv", "testdata/spendlogs_flat.csv", "../testdata/litellm/spendlogs-shapes.csv"} {
		t.Run(file, func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			want := readAll(t, "in", data, Options{})
			cr := csv.NewReader(strings.NewReader(string(data)))
			cr.FieldsPerRecord = -1
			header, err := cr.Read()
			if err != nil {
				t.Fatal(err)
			}
			m, err := NewSpendLogMapper(header)
			if err != nil {
				t.Fatal(err)
			}
			got := result{Format: want.Format}
			for {
				rec, err := cr.Read()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				got.Rows++
				line, _ := cr.FieldPos(0)
				values := make([][]byte, len(rec))
				for j, f := range rec {
					if f != "" { // an empty CSV field stands for NULL
						values[j] = []byte(f)
					}
				}
				where := "in:" + strconv.Itoa(line)
				var c Call
				if reason := m.Map(values, where, &c); reason != "" {
					if len(rec) != len(header) { // the CSV reader words it for a file
						reason = fmt.Sprintf("row has %d fields, the header has %d", len(rec), len(header))
					}
					got.Rejected = append(got.Rejected, goldenRejection{Where: where, Reason: reason})
					continue
				}
				got.Calls = append(got.Calls, toGolden(c))
			}
			if len(got.Calls) == 0 {
				t.Fatal("fixture yields no calls")
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("mapper:\n%+v\nCSV reader:\n%+v", got, want)
			}
		})
	}
}

func TestSpendLogMapper(t *testing.T) {
	cols := []string{"request_id", `"startTime"`, "endTime", "api_key", "spend", "prompt_tokens",
		"completion_tokens", "model", "team_id", "metadata", "user", "some_new_column"}
	m, err := NewSpendLogMapper(cols)
	if err != nil {
		t.Fatal(err)
	}
	row := func(vals ...string) [][]byte {
		out := make([][]byte, len(vals))
		for i, v := range vals {
			if v != "NULL" {
				out[i] = []byte(v)
			}
		}
		return out
	}
	const meta = `{"user_api_key_alias": "ci-bot", "user_api_key_team_alias": "platform",
		"additional_usage_values": {"prompt_tokens_details": {"cached_tokens": 600},
		"completion_tokens_details": {"reasoning_tokens": 30}}}`

	t.Run("metadata split, raw key hashed, team alias over team id", func(t *testing.T) {
		var c Call
		reason := m.Map(row("r-1", "2026-10-01 12:00:00.123", "2026-10-01 12:00:02.5", "sk-test-1",
			"1.2345e-05", "1000", "200", "deepseek/deepseek-flash", "t-1", meta, "u-1", "x"), "request r-1", &c)
		if reason != "" {
			t.Fatal(reason)
		}
		want := Call{
			RequestID: "r-1", Identity: "r-1", IdentityHash: HashIdentity("r-1"), Gateway: LiteLLM, Source: "request r-1",
			Start:    time.Date(2026, 10, 1, 12, 0, 0, 123e6, time.UTC),
			End:      time.Date(2026, 10, 1, 12, 0, 2, 500e6, time.UTC),
			Key:      HashKey("sk-test-1"),
			KeyAlias: "ci-bot", Team: "platform", User: "u-1", Model: "deepseek/deepseek-flash",
			Host:     "deepseek", // no provider column: the model's prefix
			Recorded: NewAmount(12345, -9),
			// prompt 1000 = 600 cached + 400 uncached; completion 200 holds 30 reasoning.
			Tokens: Tokens{Input: 400, CacheRead: 600, Output: 200, Reasoning: 30},
		}
		if !c.Recorded.Equal(want.Recorded) {
			t.Errorf("recorded %s, want %s", c.Recorded, want.Recorded)
		}
		c.Recorded = want.Recorded
		if !reflect.DeepEqual(c, want) {
			t.Errorf("got  %+v\nwant %+v", c, want)
		}
	})
	t.Run("NULL metadata and team id alone", func(t *testing.T) {
		var c Call
		if reason := m.Map(row("r-2", "2026-10-01 12:00:00", "NULL", "abc", "0", "10", "5", "m", "t-1", "NULL", "NULL", "NULL"), "request r-2", &c); reason != "" {
			t.Fatal(reason)
		}
		if c.Team != "t-1" || c.KeyAlias != "" || c.Key != "abc" || !c.End.IsZero() ||
			c.Tokens != (Tokens{Input: 10, Output: 5}) {
			t.Errorf("got %+v", c)
		}
	})
	t.Run("rejections", func(t *testing.T) {
		for _, tc := range []struct {
			vals []string
			want string
		}{
			{[]string{"r", "yesterday", "NULL", "k", "0", "1", "1", "m", "NULL", "NULL", "NULL", "NULL"}, `startTime "yesterday" is not a timestamp`},
			{[]string{"r", "2026-10-01 12:00:00", "NULL", "k", "0", "1", "1", "m", "NULL", "{bad", "NULL", "NULL"}, "metadata is not valid JSON"},
			{[]string{"r", "2026-10-01 12:00:00", "NULL", "k", "0"}, "row has 5 values, the columns are 12"},
		} {
			var c Call
			reason := m.Map(row(tc.vals...), "request r", &c)
			if !strings.Contains(reason, tc.want) {
				t.Errorf("reason %q, want it to contain %q", reason, tc.want)
			}
			if !reflect.DeepEqual(c, Call{}) {
				t.Errorf("rejected row left %+v in the call", c)
			}
		}
	})
	t.Run("missing required column", func(t *testing.T) {
		_, err := NewSpendLogMapper([]string{"request_id", "startTime", "prompt_tokens"})
		if !errors.Is(err, ErrBadHeader) || !strings.Contains(err.Error(), `"spend"`) || !strings.Contains(err.Error(), `"completion_tokens"`) {
			t.Errorf("err = %v, want a bad header naming spend and completion_tokens", err)
		}
	})
}
