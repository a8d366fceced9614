package main

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/shopspring/decimal"
)

// call is one generated spend log row. Token counts follow LiteLLM:
// Prompt includes Cached and CacheWrite, Completion includes Reasoning.
// Instants are Unix milliseconds, UTC.
type call struct {
	RequestID  []byte
	Key        *apiKey
	Dep        *deployment
	Start      int64
	FirstToken int64
	End        int64
	Prompt     int64
	Completion int64
	Cached     int64
	CacheWrite int64
	Reasoning  int64
	Spend      decimal.Decimal
	Failed     bool
	ErrorClass string // set on failures, for the dump's metadata
	EndUser    int    // 0: none; else the end customer's number
	Stream     bool
	// Billing modifiers, drawn from their own source (so that the rest of
	// the month stays as it was): the part of CacheWrite written for an
	// hour, server-side tool uses, the batch or priority tier, US-only
	// inference.
	CacheWrite1h int64
	WebSearch    int64
	WebFetch     int64
	Batch        bool
	Priority     bool
	US           bool
}

// Rates, in parts per million of rows.
const (
	ppmFailure      = 20000  // status failure, spend 0
	ppmFailureEmpty = 500000 // of failures: no tokens at all
	ppmRepeatID     = 800    // request id of the previous row again
	ppmDuplicateRow = 1000   // the previous row written again, as overlapping exports do
	ppmNoneID       = 200    // request id "None" (LiteLLM v1.99 with id: null)
	ppmUnknownModel = 3000   // a model no tariff knows
	ppmZeroSpend    = 3000   // of priced successes: spend 0 (custom price ignored)
	ppmEndUser      = 150000
	ppmStream       = 650000
)

// modelMix is the share (permille) of each deployment for a key bias.
var modelMix = [4][5]int{
	{650, 200, 80, 40, 30},  // mostly flash
	{300, 100, 500, 50, 50}, // pro-heavy
	{250, 50, 100, 550, 50}, // OpenAI
	{250, 50, 100, 50, 550}, // Anthropic
}

// generator draws calls from one seeded source.
type generator struct {
	cfg   config
	r     *rand.Rand
	keys  []apiKey
	zipf  *rand.Zipf
	prev  []byte // previous request id, for repeats
	calls int
	mod   *rand.Rand // the billing modifiers' own source
}

func newGenerator(cfg config) *generator {
	r := rand.New(rand.NewPCG(cfg.Seed, 0x746f6b656e666172)) // "tokenfar"
	keys := newKeys(r, 40)
	// The busiest keys belong to the flash-heavy services, so the gateway's
	// traffic stays mostly DeepSeek whatever the seed.
	keys[0].Bias, keys[1].Bias, keys[2].Bias = 0, 0, 1
	return &generator{
		cfg:  cfg,
		r:    r,
		keys: keys,
		zipf: rand.NewZipf(r, 1.15, 2, uint64(len(keys)-1)),
		mod:  rand.New(rand.NewPCG(cfg.Seed, 0x6d6f646966696572)), // "modifier"
	}
}

// run generates every row in startTime order and hands each to emit. The
// call passed to emit is reused: emit must not keep it.
func (g *generator) run(emit func(*call) error) error {
	const hourMs = 3_600_000
	counts := slotCounts(g.cfg.Start, g.cfg.Days*24, g.cfg.Rows)
	startMs := g.cfg.Start.UnixMilli()
	var offsets []int64
	c := &call{RequestID: make([]byte, 0, 64)}
	for h, n := range counts {
		offsets = offsets[:0]
		for range n {
			offsets = append(offsets, g.r.Int64N(hourMs))
		}
		slices.Sort(offsets)
		for _, off := range offsets {
			if !g.chance(ppmDuplicateRow) || len(g.prev) == 0 {
				g.fill(c, startMs+int64(h)*hourMs+off)
			}
			if err := emit(c); err != nil {
				return err
			}
		}
	}
	return nil
}

// chance reports true with probability ppm parts per million.
func (g *generator) chance(ppm int) bool { return g.r.IntN(1_000_000) < ppm }

// fill draws the call starting at startMs into c.
func (g *generator) fill(c *call, startMs int64) {
	c.Key = &g.keys[g.zipf.Uint64()]
	c.Dep = g.pickDeployment(c.Key.Bias)
	c.Failed = g.chance(ppmFailure)
	c.ErrorClass = ""
	c.EndUser = 0
	if g.chance(ppmEndUser) {
		c.EndUser = 1 + g.r.IntN(500)
	}
	c.Stream = g.chance(ppmStream)
	g.fillTokens(c)
	g.fillTimes(c, startMs)
	g.fillRequestID(c)
	g.fillSpend(c)
	g.fillModifiers(c)
	g.calls++
}

// Billing modifiers, in parts per million of a deployment's successful calls.
const (
	ppmOneHourWrite = 450_000 // of Anthropic calls with cache writes: some written for an hour
	ppmWebSearch    = 80_000  // Anthropic; a tenth of it for OpenAI
	ppmBatch        = 50_000  // Anthropic and OpenAI: rows of batch jobs
	ppmPriority     = 10_000  // Anthropic
	ppmUS           = 100_000 // Anthropic models that accept it: US-only inference
	ppmDeepSeekTool = 5_000   // DeepSeek Search (and half as many Fetch) calls
)

// modChance reports true with probability ppm parts per million, from the
// modifiers' source.
func (g *generator) modChance(ppm int) bool { return g.mod.IntN(1_000_000) < ppm }

// fillModifiers draws the call's billing modifiers. The gateway records
// them as LiteLLM does without the prices for them: 1-hour writes at the
// 5-minute price, searches free, a batch job's row at half its spend.
func (g *generator) fillModifiers(c *call) {
	c.CacheWrite1h, c.WebSearch, c.WebFetch, c.Batch, c.Priority, c.US = 0, 0, 0, false, false, false
	if c.Failed || !c.Dep.Known {
		return
	}
	switch c.Dep.Provider {
	case "anthropic":
		if c.CacheWrite > 0 && g.modChance(ppmOneHourWrite) {
			c.CacheWrite1h = c.CacheWrite * int64(300+g.mod.IntN(701)) / 1000
		}
		if g.modChance(ppmWebSearch) {
			c.WebSearch = 1 + int64(g.mod.IntN(5))
		}
		// Drawn for every Anthropic call, so that the stream gives the
		// same modifiers whichever models accept US-only inference.
		c.US = g.modChance(ppmUS) && c.Dep.USInference
		c.Batch = g.modChance(ppmBatch)
		c.Priority = !c.Batch && g.modChance(ppmPriority)
	case "openai":
		if g.modChance(ppmWebSearch / 10) {
			c.WebSearch = 1
		}
		c.Batch = g.modChance(ppmBatch)
	case "deepseek":
		if g.modChance(ppmDeepSeekTool) {
			c.WebSearch = 1 + int64(g.mod.IntN(3))
		}
		if g.modChance(ppmDeepSeekTool / 2) {
			c.WebFetch = 1 + int64(g.mod.IntN(2))
		}
	}
	if c.Batch {
		c.Spend = c.Spend.Mul(decimal.New(5, -1)) // LiteLLM's batch cost: half, exactly
	}
}

// callType is the row's call_type: a batch job's rows are its retrieval.
func callType(c *call) string {
	if c.Batch {
		return "aretrieve_batch"
	}
	return c.Dep.CallType
}

func (g *generator) pickDeployment(bias int) *deployment {
	if g.chance(ppmUnknownModel) {
		return &deployments[depUnknown]
	}
	n := g.r.IntN(1000)
	for i, share := range modelMix[bias] {
		if n < share {
			return &deployments[i]
		}
		n -= share
	}
	return &deployments[depFlash]
}

// logNormal draws a size around median with spread sigma, clamped to [lo, hi].
func (g *generator) logNormal(median, sigma float64, lo, hi int64) int64 {
	v := int64(median * math.Exp(sigma*g.r.NormFloat64()))
	return min(max(v, lo), hi)
}

// between returns a fraction of n drawn uniformly in [lo, hi) permille.
func (g *generator) between(n int64, lo, hi int) int64 {
	return n * int64(lo+g.r.IntN(hi-lo)) / 1000
}

func (g *generator) fillTokens(c *call) {
	c.Cached, c.CacheWrite, c.Reasoning = 0, 0, 0
	switch c.Dep {
	case &deployments[depPro]:
		c.Prompt = g.logNormal(3500, 1.1, 12, 500_000)
		c.Completion = g.logNormal(700, 0.9, 1, 32_000)
	case &deployments[depSonnet]:
		c.Prompt = g.logNormal(4000, 1.0, 12, 190_000)
		c.Completion = g.logNormal(400, 0.9, 1, 16_000)
	default:
		c.Prompt = g.logNormal(1800, 1.1, 8, 250_000)
		c.Completion = g.logNormal(280, 0.9, 1, 16_000)
	}
	if c.Failed {
		g.failTokens(c)
		return
	}
	g.cacheTokens(c)
	g.reasoningTokens(c)
}

var errorClasses = []string{"RateLimitError", "Timeout", "InternalServerError", "BadRequestError", "APIConnectionError"}

// failTokens keeps a failed call's prompt (the provider read it) or, for
// calls refused before reaching it, no tokens at all.
func (g *generator) failTokens(c *call) {
	c.ErrorClass = errorClasses[g.r.IntN(len(errorClasses))]
	c.Completion = 0
	if g.chance(ppmFailureEmpty) {
		c.Prompt = 0
	}
}

// cacheTokens splits the prompt the way each provider caches: DeepSeek in
// 64-token units, OpenAI in 128-token steps from 1024, Anthropic with
// explicit cache writes.
func (g *generator) cacheTokens(c *call) {
	switch c.Dep.Provider {
	case "deepseek":
		if g.chance(550_000) {
			c.Cached = g.between(c.Prompt, 200, 950) / 64 * 64
		}
	case "openai":
		if c.Prompt >= 1024 && g.chance(500_000) {
			if cached := g.between(c.Prompt, 300, 900) / 128 * 128; cached >= 1024 {
				c.Cached = cached
			}
		}
	case "anthropic":
		if g.chance(400_000) {
			c.Cached = g.between(c.Prompt, 500, 950)
		}
		if g.chance(120_000) {
			c.CacheWrite = g.between(c.Prompt-c.Cached, 300, 900)
		}
	}
}

func (g *generator) reasoningTokens(c *call) {
	var ppm int
	switch c.Dep {
	case &deployments[depPro]:
		ppm = 700_000
	case &deployments[depFlash], &deployments[depFlashLegacy]:
		ppm = 100_000
	case &deployments[depSonnet]:
		ppm = 150_000
	case &deployments[depUnknown]:
		ppm = 500_000
	}
	if ppm > 0 && g.chance(ppm) {
		c.Reasoning = g.between(c.Completion, 400, 850)
	}
}

// fillTimes sets first token and end from the output size: a time to first
// token, then a provider-dependent generation speed.
func (g *generator) fillTimes(c *call, startMs int64) {
	c.Start = startMs
	ttft := int64(150 + g.r.IntN(1200))
	if c.Failed {
		ttft = int64(20 + g.r.IntN(400))
		if c.ErrorClass == "Timeout" {
			ttft = int64(30_000 + g.r.IntN(30_000))
		}
	}
	tokensPerSec := int64(60 + g.r.IntN(100))
	if c.Dep == &deployments[depPro] {
		tokensPerSec = int64(30 + g.r.IntN(50))
	}
	c.End = startMs + ttft + c.Completion*1000/tokensPerSec
	c.FirstToken = c.End
	if c.Stream && !c.Failed {
		c.FirstToken = startMs + ttft
	}
}

const hexDigits = "0123456789abcdef"

// fillRequestID gives the call its provider's id style, or on purpose the
// previous row's id or LiteLLM's "None", so that duplicates occur.
func (g *generator) fillRequestID(c *call) {
	n := g.r.IntN(1_000_000)
	switch {
	case n < ppmNoneID:
		c.RequestID = append(c.RequestID[:0], "None"...)
		return
	case n < ppmNoneID+ppmRepeatID && len(g.prev) > 0:
		c.RequestID = append(c.RequestID[:0], g.prev...)
		return
	}
	id := c.RequestID[:0]
	if c.Dep.IDPrefix == "" { // DeepSeek: a UUID
		a, b := g.r.Uint64(), g.r.Uint64()
		id = appendHex(id, a>>32, 8)
		id = append(id, '-')
		id = appendHex(id, a>>16&0xffff, 4)
		id = append(id, '-', '4')
		id = appendHex(id, a&0xfff, 3)
		id = append(id, '-', hexDigits[8+b>>62])
		id = appendHex(id, b>>48&0xfff, 3)
		id = append(id, '-')
		id = appendHex(id, b&0xffffffffffff, 12)
	} else {
		id = append(id, c.Dep.IDPrefix...)
		for range 24 {
			id = append(id, alnum[g.r.IntN(len(alnum))])
		}
	}
	c.RequestID = id
	g.prev = append(g.prev[:0], id...)
}

// appendHex appends the low digits hex digits of v.
func appendHex(b []byte, v uint64, digits int) []byte {
	for i := digits - 1; i >= 0; i-- {
		b = append(b, hexDigits[v>>(4*uint(i))&0xf])
	}
	return b
}

// fillSpend records what the gateway recorded: its flat price applied to the
// token split, 0 for failures, unknown models and a few priced calls.
func (g *generator) fillSpend(c *call) {
	if c.Failed || !c.Dep.Known || g.chance(ppmZeroSpend) {
		c.Spend = decimal.Zero
		return
	}
	input := c.Prompt - c.Cached - c.CacheWrite
	c.Spend = c.Dep.Price.spend(input, c.Cached, c.CacheWrite, c.Completion)
}
