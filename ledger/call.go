package ledger

import (
	"fmt"
	"hash/maphash"
	"strconv"
	"time"
)

// Gateway names the system a call was logged by.
type Gateway string

// Gateways tokenfare reads.
const (
	LiteLLM   Gateway = "litellm"
	CLIProxy  Gateway = "cliproxy"
	Canonical Gateway = "canonical"
)

// RecordsSpend reports whether the gateway records a spend per call.
// CLIProxyAPI keeps tokens only: its calls carry no recorded spend.
func (g Gateway) RecordsSpend() bool { return g != CLIProxy }

// Status is the outcome of a call as the gateway logged it.
type Status uint8

// Call outcomes.
const (
	StatusSuccess Status = iota
	StatusFailure
)

// String returns "success" or "failure".
func (s Status) String() string {
	if s == StatusFailure {
		return "failure"
	}
	return "success"
}

// Tokens holds the non-overlapping token buckets of one call. Input is the
// uncached prompt part; CacheRead and the cache writes are the cached prompt
// parts: CacheWrite the tokens written with a 5-minute lifetime or with none
// logged, CacheWrite1h those written with a 1-hour lifetime (disjoint from
// CacheWrite). Output includes Reasoning, which is kept apart for reports
// and for tariffs that price reasoning separately.
type Tokens struct {
	Input        int64
	CacheRead    int64
	CacheWrite   int64
	CacheWrite1h int64
	Output       int64
	Reasoning    int64
}

// Prompt returns the whole prompt size: uncached, cache read and cache writes.
func (t Tokens) Prompt() int64 { return t.Input + t.CacheRead + t.CacheWrite + t.CacheWrite1h }

// Total returns every token of the call (reasoning is inside Output).
func (t Tokens) Total() int64 { return t.Prompt() + t.Output }

// Call is one logged call, normalised from any source. Instants are UTC.
// Key is never a raw API key: readers hash raw keys on ingest.
type Call struct {
	RequestID  string
	Gateway    Gateway
	Start      time.Time
	FirstToken time.Time // zero when unknown
	End        time.Time // zero when unknown
	Key        string    // hashed key
	KeyAlias   string
	Team       string
	User       string
	Model      string // model as logged (the one sent upstream)
	ModelGroup string // public alias the client asked for
	Deployment string
	Provider   string
	// Host is who served the call and bills it, decided from what the
	// gateway logged (LiteLLMHost, CLIProxyHost, the canonical host
	// column): lowercase, spelled as tariff files spell hosts ("azure",
	// "bedrock", "openai"); "" when nothing logged says.
	Host string
	// PriceKey is the name the gateway itself priced the call under, when
	// it logged one (LiteLLM's metadata.model_map_information.model_map_key:
	// "azure/eu/gpt-4o-2024-11-20" for a deployment logged as
	// "azure/my-gpt4o-eu"). Pricing tries it before the model and the
	// model group, among the host's lists only; "" when none was logged.
	PriceKey string
	Status   Status
	// Failure is what the gateway logged of a failed call's cause; the
	// zero value on a success.
	Failure Failure
	// APIBase is the endpoint the gateway sent the call to, as logged
	// (LiteLLM's api_base); "" when not logged.
	APIBase  string
	Recorded Amount // spend the gateway recorded
	Tokens   Tokens
	// Tools counts the uses of server-side tools billed per use.
	Tools ToolUses
	// ServiceTier is the tier the call was served in, as logged; Standard
	// when the log names none.
	ServiceTier ServiceTier
	// TierSource says where ServiceTier comes from: the tier that served
	// the call, the one asked for when only the request was stored, or
	// none logged.
	TierSource TierSource
	// AskedTier is the tier the request asked for, when Asked: the stored
	// request names one. It may differ from ServiceTier: OpenAI serves a
	// priority request it cannot take at the default tier, and says so.
	AskedTier ServiceTier
	Asked     bool
	// Region is where the call was processed when the log says so and it
	// can change the price (Anthropic's inference_geo "us"); "" otherwise.
	Region string
	// Tags are the call's request tags (LiteLLM's request_tags), sorted,
	// each once, joined by TagSep; "" when none. The tags LiteLLM adds by
	// itself ("User-Agent: ...") are left out: they name a client library,
	// not who to charge.
	Tags string
	// KeyMeta is the key's metadata as the gateway keeps it (LiteLLM's
	// LiteLLM_VerificationToken.metadata), a JSON object as text; "" when
	// not logged.
	KeyMeta string
	// CacheHit: the gateway answered from its own response cache and never
	// called the provider (LiteLLM cache_hit True). Tokens are those of the
	// cached answer: what the hit saved.
	CacheHit bool

	// Identity tells duplicate records apart from distinct ones: two
	// calls of one gateway with the same non-empty Identity are the same
	// logged call. LiteLLM and canonical rows use the request id. Retries
	// of a CLIProxyAPI request share its request id, so CLIProxyAPI calls
	// use a hash of the whole record instead (v7: request id, timestamp,
	// auth index, tokens and failed; v6: the import dedupe key).
	Identity string
	// IdentityHash is HashIdentity(Identity) when the reader computed it,
	// in the goroutine that parsed the row; 0 means not computed. Code
	// that changes Identity must set it to 0.
	IdentityHash uint64

	// Source locates the row for error messages: "file:line" or a request
	// id. A reader of files may leave it empty and note the file and line
	// instead (sourceFile, sourceLine): Where joins them when a message
	// asks, where a text per call, the file's name again in each, was two
	// thirds of what the CSV reader allocated (docs/scale.md, "A call's
	// place, written when asked").
	Source string
	// sourceFile is the name of the file the row was read from, shared by
	// the calls of one read, and sourceLine its line; nil when Source says
	// where the row is (or nothing does).
	sourceFile *string
	sourceLine int
}

// SettleSource writes Where into Source and drops the read's note: a
// call kept, copied or compared past its read then says where it was
// read by Source alone.
func (c *Call) SettleSource() { c.Source, c.sourceFile, c.sourceLine = c.Where(), nil, 0 }

// Where returns where the call was read, for messages: Source, or the
// file and line a reader noted in its place, "file:line".
func (c *Call) Where() string {
	if c.Source != "" || c.sourceFile == nil {
		return c.Source
	}
	return *c.sourceFile + ":" + strconv.Itoa(c.sourceLine)
}

// latestYear is the last whole year an instant in Unix nanoseconds holds.
const latestYear = 2261

var beyondLatestYear = time.Date(latestYear+1, 1, 1, 0, 0, 0, 0, time.UTC)

// beyondLatestUnix is beyondLatestYear in Unix seconds: an instant is
// before it exactly when its Unix seconds are below, as it starts a second.
var beyondLatestUnix = beyondLatestYear.Unix()

// maxTokens is the most tokens one bucket of one call may hold. A row above
// it is rejected: no call comes near it, and it keeps the sums of millions
// of calls within int64 (pricing refuses sums that would not fit).
const maxTokens = 1_000_000_000_000_000 // 10^15

// check reports what makes a call read from a row impossible, or "": an
// instant out of order or beyond what pricing can hold, a negative spend,
// a token count above maxTokens or below zero. As every bucket a reader
// adds or subtracts is kept, a sum that wrapped shows as one of these.
func (c *Call) check() string {
	if t := &c.Tokens; max(t.Input, t.CacheRead, t.CacheWrite, t.Output, t.Reasoning) > maxTokens ||
		min(t.Input, t.CacheRead, t.CacheWrite, t.Output, t.Reasoning) < 0 {
		for _, n := range []struct {
			name string
			v    int64
		}{{"input", t.Input}, {"cache read", t.CacheRead}, {"cache write", t.CacheWrite}, {"output", t.Output}, {"reasoning", t.Reasoning}} {
			switch {
			case n.v > maxTokens:
				return fmt.Sprintf("%d %s tokens are more than one call can hold (at most 10^15)", n.v, n.name)
			case n.v < 0:
				return fmt.Sprintf("%s tokens come to %d, below zero", n.name, n.v)
			}
		}
	}
	if t := &c.Tokens; t.CacheWrite1h > maxTokens || t.CacheWrite1h < 0 {
		if t.CacheWrite1h < 0 {
			return fmt.Sprintf("1-hour cache write tokens come to %d, below zero", t.CacheWrite1h)
		}
		return fmt.Sprintf("%d 1-hour cache write tokens are more than one call can hold (at most 10^15)", t.CacheWrite1h)
	}
	for tool, n := range c.Tools {
		switch {
		case n < 0:
			return fmt.Sprintf("%s uses come to %d, below zero", Tool(tool), n)
		case n > maxTokens:
			return fmt.Sprintf("%d %s uses are more than one call can hold (at most 10^15)", n, Tool(tool))
		}
	}
	if c.Start.Unix() >= beyondLatestUnix || c.FirstToken.Unix() >= beyondLatestUnix || c.End.Unix() >= beyondLatestUnix {
		for _, t := range []struct {
			name string
			at   time.Time
		}{{"start", c.Start}, {"first token", c.FirstToken}, {"end", c.End}} {
			if !t.at.Before(beyondLatestYear) {
				return fmt.Sprintf("%s %s is after the year %d", t.name, t.at.Format(time.RFC3339), latestYear)
			}
		}
	}
	if !c.End.IsZero() && c.End.Before(c.Start) {
		return fmt.Sprintf("end %s is before start %s", c.End.Format(time.RFC3339Nano), c.Start.Format(time.RFC3339Nano))
	}
	if !c.FirstToken.IsZero() && c.FirstToken.Before(c.Start) {
		return fmt.Sprintf("first token %s is before start %s", c.FirstToken.Format(time.RFC3339Nano), c.Start.Format(time.RFC3339Nano))
	}
	if c.Recorded.IsNegative() {
		return fmt.Sprintf("recorded spend %s is negative", c.Recorded)
	}
	return ""
}

// buildChecked returns a builder's reason to reject a row, or else the
// call's own check.
func buildChecked(reason string, c *Call) string {
	if reason != "" {
		return reason
	}
	return c.check()
}

// identitySeed makes HashIdentity the same function in the whole process.
var identitySeed = maphash.MakeSeed()

// HashIdentity hashes a call identity, the same way throughout a process
// and differently in each; HashIdentityBytes(b) equals HashIdentity(string(b)).
func HashIdentity(identity string) uint64 { return maphash.String(identitySeed, identity) }

// HashIdentityBytes is HashIdentity of b's text.
func HashIdentityBytes(b []byte) uint64 { return maphash.Bytes(identitySeed, b) }
