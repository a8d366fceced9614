package ledger

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"
)

// checkFuzz reads data and checks the invariants: no panic, every row
// accounted for, every rejection located and explained.
func checkFuzz(t *testing.T, name string, data []byte, opt Options) result {
	res := readAll(t, name, data, opt)
	checkResult(t, res)
	for _, r := range res.Rejected {
		if !strings.HasPrefix(r.Where, name) {
			t.Errorf("rejection %q does not name the input %q", r.Where, name)
		}
	}
	return res
}

func addFixture(f *testing.F, path string) {
	if data, err := os.ReadFile(path); err == nil {
		f.Add(data)
	}
}

// FuzzReadSpendLogCSV feeds rows under a fixed LiteLLM header. The result
// must not depend on chunk size or worker count, and every physical record
// is a row.
func FuzzReadSpendLogCSV(f *testing.F) {
	const header = "request_id,startTime,spend,prompt_tokens,completion_tokens,cached_tokens,metadata\n"
	f.Add([]byte("a,2026-09-01 00:00:00,0.1,10,5,2,\n"))
	f.Add([]byte("a,2026-09-01 00:00:00,1e-5,10,5,,\"{\"\"additional_usage_values\"\":{}}\"\nb,x,y,z,1,2,3\n"))
	f.Add([]byte("\"a\nb\",2026-09-01T00:00:00Z,0,0,0,0,\r\n\n\"unterminated,1\n"))
	f.Add([]byte("a,\"b\"c,1,1,1,1,1\nd,e\"f,1\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		data := append([]byte(header), body...)
		want := checkFuzz(t, "f.csv", data, Options{Workers: 1})
		got := checkFuzz(t, "f.csv", data, Options{Workers: 3, ChunkSize: 16, BatchSize: 2})
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("chunked read differs\ngot  %v\nwant %v", got, want)
		}
		unescaped := checkFuzz(t, "f.csv", data, Options{Workers: 1, unescapeAll: true})
		if fmt.Sprint(want) != fmt.Sprint(unescaped) {
			t.Errorf("metadata read in place differs from it unescaped first\ngot  %v\nwant %v", want, unescaped)
		}
	})
}

// FuzzReadCanonicalCSV feeds rows under a canonical header.
func FuzzReadCanonicalCSV(f *testing.F) {
	const header = "request_id,start,key,model,status,recorded_spend,input_tokens,output_tokens,reasoning_tokens\n"
	f.Add([]byte("a,2026-09-01 00:00:00,sk-1,m,success,0.1,10,5,2\n"))
	f.Add([]byte("a,2026-09-01T00:00:00+08:00,,m,failure,,1,1,2\n,,,,,,,,\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		checkFuzz(t, "c.csv", append([]byte(header), body...), Options{ChunkSize: 32})
	})
}

// FuzzReadSpendLogJSON feeds JSON arrays of LiteLLM rows.
func FuzzReadSpendLogJSON(f *testing.F) {
	addFixture(f, "testdata/spendlogs.json")
	addFixture(f, "testdata/spendlogs_v2.json")
	addFixture(f, "../testdata/litellm/spendlogs-shapes.json")
	f.Add([]byte(`[{"request_id":"a","startTime":"2026-09-01 00:00:00","spend":1e-9,"prompt_tokens":1,"completion_tokens":0,"metadata":{"additional_usage_values":{"prompt_tokens_details":{"cached_tokens":"1"}}}}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if t := bytes.TrimSpace(data); len(t) == 0 || (t[0] != '[' && t[0] != '{') {
			return
		}
		checkFuzz(t, "s.json", data, Options{BatchSize: 2})
	})
}

// FuzzReadCLIProxyV6 feeds v6 usage exports.
func FuzzReadCLIProxyV6(f *testing.F) {
	addFixture(f, "testdata/cliproxy_v6.json")
	f.Add([]byte(`{"version":1,"usage":{"apis":{"k":{"models":{"m":{"details":[{"timestamp":"2026-01-01T00:00:00Z","tokens":{"input_tokens":1}}]}}}}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		res := checkFuzz(t, "u.json", data, Options{BatchSize: 1})
		if strings.Contains(fmt.Sprint(res), `"k"`) {
			t.Errorf("raw api key in output: %v", res)
		}
	})
}

// FuzzReadCLIProxyV7 feeds v7 usage-queue records, as JSON lines and as
// arrays.
func FuzzReadCLIProxyV7(f *testing.F) {
	// Small seeds: the fixtures are large enough to make minimisation slow.
	f.Add([]byte(`{"timestamp":"2026-08-22T14:03:05.1+08:00","auth_index":"3f","tokens":{"input_tokens":18,"output_tokens":9,"cached_tokens":20,"cache_read_tokens":20,"cache_read_tokens_present":true,"cache_creation_tokens":15},"provider":"claude","model":"m","api_key":"sk-1","request_id":"a1"}` + "\n\nnot json\n"))
	f.Add([]byte(`[{"timestamp":"2026-08-22T06:10:00Z","tokens":{"input_tokens":30,"output_tokens":6,"reasoning_tokens":2,"cached_tokens":25},"failed":true,"token_breakdown":{"quality":"complete","total_tokens":36,"input":{"total_tokens":30,"uncached_tokens":5,"cache_read_tokens":25},"output":{"total_tokens":6,"non_reasoning_tokens":4,"reasoning_tokens":2}},"provider":"gemini","auth_index":12}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkFuzz(t, "q.jsonl", data, Options{BatchSize: 3})
	})
}

// FuzzOpen feeds anything to Open: it must never panic.
func FuzzOpen(f *testing.F) {
	for _, p := range []string{"testdata/spendlogs_flat.csv", "testdata/canonical.jsonl", "testdata/broken.csv", "testdata/ui_export.csv"} {
		addFixture(f, p)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkFuzz(t, "x", data, Options{ChunkSize: 64})
	})
}
