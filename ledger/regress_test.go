package ledger

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
)

// readEdge reads every row of input and returns its calls and rejections.
func readEdge(t *testing.T, name, input string, opt Options) ([]Call, []string) {
	t.Helper()
	r, err := open(context.Background(), name, strings.NewReader(input), opt)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var calls []Call
	var rejected []string
	var b Batch
	for {
		err := r.Next(context.Background(), &b)
		if errors.Is(err, io.EOF) {
			return calls, rejected
		}
		if err != nil {
			t.Fatal(err)
		}
		calls = append(calls, b.Calls...)
		for _, rej := range b.Rejected {
			rejected = append(rejected, rej.Error())
		}
	}
}

// TestEdgeInputs holds inputs that once lost or misread rows.
func TestEdgeInputs(t *testing.T) {
	const header = "request_id,startTime,spend,prompt_tokens,completion_tokens"
	tests := []struct {
		name     string
		input    string
		calls    int
		rejected []string
		check    func(t *testing.T, calls []Call)
	}{
		{name: "v6 statistics without their envelope",
			input: `{"apis":{"sk-x":{"models":{"gpt-5":{"details":[{"timestamp":"2026-04-30T15:58:12Z","tokens":{"input_tokens":5,"output_tokens":1}}]}}}}}`,
			calls: 1},
		{name: "blank lines before the header", input: "\n\r\n" + header + "\na,2026-09-01 00:00:00,0.1,10,5\nb,x,0.1,10,5\n",
			calls: 1, rejected: []string{`in:5: startTime "x" is not a timestamp`}},
		{name: "CR at the end of a quoted last record", input: header + "\n\"x\",2026-09-01 00:00:00,1,2,1\r", calls: 1},
		{name: "latency beyond what a duration holds",
			input:    `[{"timestamp":"2026-08-22T14:03:05Z","latency_ms":9223372036854775,"tokens":{"input_tokens":1,"output_tokens":1},"model":"m","request_id":"r"}]`,
			rejected: []string{"in[0] request_id \"r\": latency_ms 9223372036854775 or ttft_ms 0 is out of range"}},
		{name: "two names of one column: the first wins",
			input: `{"request_id":"r","startTime":"2026-09-01 00:00:00","spend":0,"prompt_tokens":1,"completion_tokens":1,"team_alias":"A","user_api_key_team_alias":"B"}` + "\n",
			calls: 1, check: func(t *testing.T, calls []Call) {
				if calls[0].Team != "A" {
					t.Errorf("team = %q, want A", calls[0].Team)
				}
			}},
		{name: "an odd type in an alias does not cost the row",
			input: `{"request_id":"r","startTime":"2026-09-01 00:00:00","spend":0,"prompt_tokens":1,"completion_tokens":1,"metadata":{"user_api_key_team_id":42,"user_api_key_alias":{"x":1}}}` + "\n",
			calls: 1, check: func(t *testing.T, calls []Call) {
				if calls[0].Team != "42" || calls[0].KeyAlias != "" {
					t.Errorf("team %q, alias %q; want 42 and none", calls[0].Team, calls[0].KeyAlias)
				}
			}},
		{name: "a raw key in the wrong column is not echoed", input: header + "\na,2026-09-01 00:00:00,sk-live-123,10,5\n",
			rejected: []string{"in:2: spend (a value that looks like an API key, not shown) is not a decimal number"}},
		{name: "1969 in UTC through an offset", input: header + "\na,1970-01-01 05:00:00+08:00,0.1,10,5\n",
			rejected: []string{`in:2: startTime "1970-01-01 05:00:00+08:00" is before 1970`}},
		{name: "1960 is before 1970, not a bad timestamp", input: header + "\na,1960-02-29 10:00:00,0.1,10,5\nb,1960-02-30 10:00:00,0.1,10,5\n",
			rejected: []string{`in:2: startTime "1960-02-29 10:00:00" is before 1970`, `in:3: startTime "1960-02-30 10:00:00" is not a timestamp`}},
		{name: "an exponent out of range is not a malformed number", input: header + "\na,2026-09-01 00:00:00,1e308,10,5\nb,2026-09-01 00:00:00,1e3x,10,5\n",
			rejected: []string{`in:2: spend "1e308" is out of range: exponents run from -64 to 64`, `in:3: spend "1e3x" is not a decimal number`}},
		{name: "more tokens than a call can hold", input: header + "\na,2026-09-01 00:00:00,0.1,1000000000000001,5\nb,2026-09-01 00:00:00,0.1,1000000000000000,5\n",
			calls: 1, rejected: []string{"in:2: 1000000000000001 input tokens are more than one call can hold (at most 10^15)"}},
		{name: "an output sum that would wrap", // Gemini output is output_tokens + reasoning_tokens: 2^63-1 + 1 wraps below zero
			input:    `[{"timestamp":"2026-08-22T14:03:05Z","provider":"gemini","tokens":{"input_tokens":1,"output_tokens":9223372036854775807,"reasoning_tokens":1},"model":"m","request_id":"r"}]`,
			rejected: []string{`in[0] request_id "r": output tokens come to -9223372036854775808, below zero`}},
		{name: "a spend with too many leading zeros", input: header + "\na,2026-09-01 00:00:00,0." + strings.Repeat("0", 80) + "1,10,5\n",
			rejected: []string{"in:2: spend"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for range 20 { // map order once made results vary between reads
				calls, rejected := readEdge(t, "in", tt.input, Options{})
				if len(calls) != tt.calls || len(rejected) != len(tt.rejected) {
					t.Fatalf("%d calls and rejections %q, want %d calls and %q", len(calls), rejected, tt.calls, tt.rejected)
				}
				for i, want := range tt.rejected {
					if !strings.Contains(rejected[i], want) {
						t.Errorf("rejection %q lacks %q", rejected[i], want)
					}
				}
				if tt.check != nil {
					tt.check(t, calls)
				}
			}
		})
	}
}

func TestOverlongLineIsOneRow(t *testing.T) {
	const header = "request_id,startTime,spend,prompt_tokens,completion_tokens\n"
	long := "a," + strings.Repeat("x", 130) + ",0.1,10,5\n"
	input := header + long + "b,2026-09-01 00:00:00,0.1,10,5\nc,oops,0.1,10,5\n"
	calls, rejected := readEdge(t, "in", input, Options{ChunkSize: 8, maxRecord: 32})
	if len(calls) != 1 || len(rejected) != 2 {
		t.Fatalf("%d calls, rejections %q; want 1 call and 2 rejections", len(calls), rejected)
	}
	if !strings.HasPrefix(rejected[0], "in:2: line longer than 32 bytes") || !strings.HasPrefix(rejected[1], "in:4: ") {
		t.Errorf("rejections %q, want line 2 too long and line 4 bad", rejected)
	}
}
