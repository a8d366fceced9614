package main

import (
	"strings"
	"testing"
)

func TestSum(t *testing.T) {
	tests := []struct {
		name    string
		csv     string
		want    sums
		wantErr string
	}{
		{
			name: "columns found by name",
			csv:  "request_id,cached_tokens,prompt_tokens,completion_tokens\na,10,100,7\nb,0,50,3\n",
			want: sums{Rows: 2, Prompt: 150, Completion: 10, Cached: 10},
		},
		{
			name: "CRLF lines and no final newline",
			csv:  "prompt_tokens,completion_tokens,cached_tokens\r\n1,2,3\r\n40,50,60",
			want: sums{Rows: 2, Prompt: 41, Completion: 52, Cached: 63},
		},
		{
			// 7 + 1 + 12 + 1 + 5 + 1 + 1 bytes: commas in both words of a
			// 16-byte line and in its 3-byte tail.
			name: "fields across words",
			csv:  "request_id,prompt_tokens,completion_tokens,cached_tokens\nabcdefg,123456789012,99999,0\nx,1,2,3\n",
			want: sums{Rows: 2, Prompt: 123456789013, Completion: 100001, Cached: 3},
		},
		{name: "header only", csv: "prompt_tokens,completion_tokens,cached_tokens\n", want: sums{}},
		{name: "missing column", csv: "prompt_tokens,completion_tokens\n1,2\n", wantErr: "no cached_tokens column"},
		{name: "not an integer", csv: "prompt_tokens,completion_tokens,cached_tokens\n1,x,0\n", wantErr: "line 2: completion_tokens"},
		{name: "negative count", csv: "prompt_tokens,completion_tokens,cached_tokens\n1,-2,0\n", wantErr: "line 2: completion_tokens"},
		{name: "short line", csv: "prompt_tokens,completion_tokens,cached_tokens\n1,2\n", wantErr: "line 2: 2 fields"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := sum(strings.NewReader(tt.csv))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("sum = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

// TestCommas checks the word scan against a byte loop for every byte value
// in every position: only commas are marked.
func TestCommas(t *testing.T) {
	for c := range 256 {
		for pos := range 8 {
			b := []byte("........")
			b[pos] = byte(c)
			want := uint64(0)
			for i, x := range b {
				if x == ',' {
					want |= 0x80 << (8 * i)
				}
			}
			if got := commas(word(b)); got != want {
				t.Fatalf("byte %#x at %d: commas = %#x, want %#x", c, pos, got, want)
			}
			if got := commas(word(b[:pos+1])); got != want&(1<<(8*(pos+1))-1) {
				t.Fatalf("byte %#x ending a %d-byte tail: commas = %#x", c, pos+1, got)
			}
		}
	}
}
