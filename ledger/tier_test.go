package ledger

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"io"
	"testing"
)

// TestStoredTiers reads the tier that served a call from the stored
// response and the one asked for from the stored request
// (store_prompts_in_spend_logs), as a table dump holds them.
func TestStoredTiers(t *testing.T) {
	tests := []struct {
		name          string
		response, req string
		flat          string // the flat export's service_tier column
		tier, asked   ServiceTier
		source        TierSource
		askedIsLogged bool
	}{
		{name: "nothing stored", response: "{}", req: "{}", tier: TierStandard, source: TierNotLogged},
		{name: "a priority request served at default", response: `{"id":"c1","service_tier":"default","choices":[]}`,
			req: `{"model":"gpt-5","service_tier":"priority"}`, tier: TierStandard, asked: TierPriority, source: TierServed, askedIsLogged: true},
		{name: "served as asked", response: `{"service_tier": "flex"}`, req: `{"service_tier":"flex"}`,
			tier: TierFlex, asked: TierFlex, source: TierServed, askedIsLogged: true},
		{name: "only the request stored", response: "{}", req: `{"service_tier":"priority","messages":[]}`,
			tier: TierPriority, asked: TierPriority, source: TierAsked, askedIsLogged: true},
		{name: "the response's tier is null", response: `{"service_tier":null}`, req: `{"service_tier":"flex"}`,
			tier: TierFlex, asked: TierFlex, source: TierAsked, askedIsLogged: true},
		{name: "a tier named inside a message", response: "{}", req: `{"messages":[{"content":"set \"service_tier\": \"flex\""}]}`,
			tier: TierStandard, source: TierNotLogged},
		{name: "the flat column, the request asks more", flat: "batch", response: "{}", req: `{"service_tier":"priority"}`,
			tier: TierBatch, asked: TierPriority, source: TierServed, askedIsLogged: true},
		{name: "the response wins over the flat column", flat: "priority", response: `{"service_tier":"default"}`, req: "{}",
			tier: TierStandard, source: TierServed},
		// The top level's member alone names a tier, as the database reads a
		// stored request: not one of a nested object or array.
		{name: "a tier of a nested object", response: "{}", req: `{"metadata":{"service_tier":"flex"},"model":"gpt-5"}`,
			tier: TierStandard, source: TierNotLogged},
		{name: "a tier in an array", response: `[{"service_tier":"flex"}]`, req: "{}", tier: TierStandard, source: TierNotLogged},
		{name: "a nested schema before the top level's tier", response: "{}",
			req:  `{"tools":[{"parameters":{"properties":{"service_tier":{"type":"string"}}}}],"service_tier":"priority"}`,
			tier: TierPriority, asked: TierPriority, source: TierAsked, askedIsLogged: true},
		{name: "the last of two wins", response: `{"service_tier":"flex","service_tier":"priority"}`, req: "{}",
			tier: TierPriority, source: TierServed},
		{name: "an escaped tier", response: `{"service_tier":"fl\u0065x"}`, req: "{}", tier: TierFlex, source: TierServed},
		{name: "the tier is a number", response: `{"service_tier":1}`, req: `{"service_tier":"flex"}`,
			tier: TierFlex, asked: TierFlex, source: TierAsked, askedIsLogged: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			w := csv.NewWriter(&buf)
			w.Write([]string{"request_id", "startTime", "spend", "prompt_tokens", "completion_tokens", "model", "service_tier", "response", "proxy_server_request"})
			w.Write([]string{"r1", "2026-10-01 00:00:00", "0.001", "10", "1", "gpt-5", tt.flat, tt.response, tt.req})
			w.Flush()
			r, err := open(context.Background(), "t.csv", &buf, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var b Batch
			if err := r.Next(context.Background(), &b); err != nil && !errors.Is(err, io.EOF) {
				t.Fatal(err)
			}
			if len(b.Calls) != 1 {
				t.Fatalf("calls %d, rejected %v", len(b.Calls), b.Rejected)
			}
			c := b.Calls[0]
			if c.ServiceTier != tt.tier || c.TierSource != tt.source || c.Asked != tt.askedIsLogged || c.AskedTier != tt.asked {
				t.Errorf("tier %s from %d, asked %v %s; want %s from %d, asked %v %s", c.ServiceTier, c.TierSource, c.Asked, c.AskedTier,
					tt.tier, tt.source, tt.askedIsLogged, tt.asked)
			}
		})
	}
}
