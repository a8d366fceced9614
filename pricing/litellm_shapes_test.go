package pricing_test

import (
	"testing"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

// TestLiteLLMUsageShapesPriced prices one row of each LiteLLM usage shape
// (testdata/litellm, read from the table dump and from the /spend/logs
// JSON answer) at the embedded list prices, per 1M tokens:
// claude-sonnet-4-5 input 3, cache read 0.30, cache write 3.75, output 15;
// gpt-4o input 2.50, cache read 1.25, output 10; gemini-2.5-flash input
// 0.30, cache read 0.03, output 2.50; deepseek-flash at peak (Monday
// 11:00 Beijing) input 0.30, cache read 0.006, output 1.20; Bedrock's
// us. profile of claude-sonnet-4-5 (Bedrock's own list, 1.10 x the global
// endpoint) input 3.30, cache read 0.33, cache write 4.125, output 16.50.
// Reasoning is priced as output.
func TestLiteLLMUsageShapesPriced(t *testing.T) {
	cat, ps := tariffs.Load("")
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	d := func(s string) decimal.Decimal { return decimal.RequireFromString(s) }
	want := map[string]decimal.Decimal{
		// 40×3 + 6000×0.30 + 2000×3.75 + 500×15 = 120 + 1800 + 7500 + 7500 = 16920
		"chatcmpl-anth-172": d("0.01692"),
		// 12×3 + 18250×3.75 + 300×15 = 36 + 68437.5 + 4500 = 72973.5
		"chatcmpl-anth-172-write": d("0.0729735"),
		// 5000×3 + 2000×0.30 + 1000×3.75 + 100×15 = 15000 + 600 + 3750 + 1500 = 20850
		"chatcmpl-anth-172-long": d("0.02085"),
		// 10×3 + 66360×0.30 + 32435×3.75 + 5120×15 = 30 + 19908 + 121631.25 + 76800 = 218369.25
		"chatcmpl-anth-180": d("0.21836925"),
		// 25×3 + 9000×0.30 + 400×15 = 75 + 2700 + 6000 = 8775
		"msg_01XFDUDYJgAACzvnptvVoYEL": d("0.008775"),
		// 1080×2.50 + 1920×1.25 + 200×10 = 2700 + 2400 + 2000 = 7100
		"chatcmpl-CFk2t7Qe9oai": d("0.0071"),
		// 842×2.50 + 1920×1.25 + 345×10 = 2105 + 2400 + 3450 = 7955
		"resp_68c1f0a7b2e4819ab0": d("0.007955"),
		// 1225×0.30 + 6912×0.006 + 628×1.20 = 367.5 + 41.472 + 753.6 = 1162.572
		"0f6c2b8e-5d1a-4e3b-9a7c-2e8d4f6b1a03": d("0.001162572"),
		// 464×0.30 + 1536×0.006 + 100×1.20 = 139.2 + 9.216 + 120 = 268.416
		"5b9e1d7c-3a2f-4c8e-b6d0-7f1a9c2e4b58": d("0.000268416"),
		// 4000×0.30 + 8000×0.03 + 2000×2.50 = 1200 + 240 + 5000 = 6440
		"gemini-Yb3nZ9kQ8xM2pL7v": d("0.00644"),
		// the same call through an older LiteLLM: the same cost
		"gemini-Qw4eR7tY1uI5oP0a": d("0.00644"),
		// Bedrock, cache writes outside and inside the prompt count alike:
		// 20×3.30 + 5000×0.33 + 1000×4.125 + 250×16.50 = 66 + 1650 + 4125 + 4125 = 9966
		"chatcmpl-bedrock-out": d("0.009966"),
		"chatcmpl-bedrock-in":  d("0.009966"),
		// o4-mini (input 1.10, cache read 0.275, output 4.40; on sale until
		// 2026-10-23): 904×1.10 + 4096×0.275 + 1200×4.40 = 994.4 + 1126.4 + 5280 = 7400.8
		"resp_68c1f0c3d9a4819bb1": d("0.0074008"),
	}
	// Not priced: the response-cache hit never reached the provider.
	unpriced := map[string]pricing.Outcome{
		"chatcmpl-CFk2t7Qe9oai_cache_hit1791774000.512": pricing.CacheHit,
	}
	for _, file := range []string{"../testdata/litellm/spendlogs-shapes.csv", "../testdata/litellm/spendlogs-shapes.json"} {
		t.Run(file, func(t *testing.T) {
			e := pricing.New(cat, pricing.Options{Dims: []pricing.Dim{pricing.DimModel}})
			calls := readCalls(t, file)
			sum := decimal.Zero
			for i := range calls {
				c := &calls[i]
				pc := e.AddPriced(c)
				_, cost := pc.Cost(c)
				if o, ok := unpriced[c.RequestID]; ok {
					if pc.Outcome != o || !cost.IsZero() {
						t.Errorf("%s: %s costing %s, want %s at 0", c.RequestID, pc.Outcome, cost, o)
					}
					continue
				}
				w, ok := want[c.RequestID]
				if !ok {
					t.Fatalf("unexpected call %s", c.RequestID)
				}
				if pc.Outcome != pricing.Priced || !cost.Equal(w) {
					t.Errorf("%s: %s at %s, want priced at %s", c.RequestID, pc.Outcome, cost, w)
				}
				sum = sum.Add(cost)
			}
			rec := e.Reconcile()
			r := rec.Rows
			balanced := r.Read == r.Priced+r.Unpriced+r.Retired+r.Failed+r.Duplicate+r.Rejected+r.Outside+r.CacheHit
			if r.Read != 15 || r.Priced != 14 || r.Unpriced != 0 || r.CacheHit != 1 || !balanced {
				t.Errorf("rows %+v: want read 15 = priced 14 + cache_hit 1", r)
			}
			if !rec.Totals.Official.Equal(sum) {
				t.Errorf("official total %s, want the sum of the calls %s", rec.Totals.Official, sum)
			}
			var hits int
			for _, x := range rec.Explanations {
				if x.Model == "gpt-4o" && x.Kind == pricing.KindZeroSpend {
					t.Errorf("the cache hit is explained as zero spend: %+v", x)
				}
				if x.Kind == pricing.KindCacheHits {
					hits++
					// the cached answer: 3000 prompt + 200 output tokens
					if x.Model != "gpt-4o" || x.Calls != 1 || x.Tokens != 3200 || !x.Amount.IsZero() {
						t.Errorf("cache hits explained as %+v, want 1 gpt-4o call, 3200 tokens, amount 0", x)
					}
				}
			}
			if hits != 1 {
				t.Errorf("%d cache_hits explanations, want 1", hits)
			}
		})
	}
}
