package ledger

import (
	"testing"
)

func TestImpossibleCallsAreRejected(t *testing.T) {
	const header = "request_id,start,end,model,status,recorded_spend,input_tokens,cache_read_tokens,cache_write_tokens,output_tokens,reasoning_tokens\n"
	tests := []struct {
		name, row, want string
	}{
		{"end before start", "a,2026-10-01T10:00:05Z,2026-10-01T10:00:00Z,m,success,0.1,1,0,0,1,0", "calls.csv:2: end 2026-10-01T10:00:00Z is before start 2026-10-01T10:00:05Z"},
		{"negative spend", "a,2026-10-01T10:00:00Z,,m,success,-0.1,1,0,0,1,0", "calls.csv:2: recorded spend -0.1 is negative"},
		{"beyond what an instant holds", "a,2300-01-01T00:00:00Z,,m,success,0.1,1,0,0,1,0", "calls.csv:2: start 2300-01-01T00:00:00Z is after the year 2261"},
		// The last instant held is 2261-12-31 23:59:59.999999999 UTC.
		{"the first instant of 2262", "a,2262-01-01T00:00:00Z,,m,success,0.1,1,0,0,1,0", "calls.csv:2: start 2262-01-01T00:00:00Z is after the year 2261"},
		{"an end in 2262", "a,2261-12-31T23:59:59Z,2262-01-01T00:00:00.001Z,m,success,0.1,1,0,0,1,0", "calls.csv:2: end 2262-01-01T00:00:00Z is after the year 2261"},
		{"the last millisecond of 2261", "a,2261-12-31T23:59:59.999Z,,m,success,0.1,1,0,0,1,0", ""},
		{"a sound row", "a,2026-10-01T10:00:00Z,2026-10-01T10:00:01Z,m,success,0.1,1,0,0,1,0", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls, got := readEdge(t, "calls.csv", header+tt.row+"\n", Options{})
			if tt.want == "" {
				if len(calls) != 1 || len(got) != 0 {
					t.Errorf("got %d calls and rejections %v, want the call", len(calls), got)
				}
				return
			}
			if len(got) != 1 || got[0] != tt.want {
				t.Errorf("rejections = %q, want %q", got, tt.want)
			}
		})
	}
}
