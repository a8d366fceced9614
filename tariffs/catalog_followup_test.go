package tariffs

import "testing"

// retired stands for "retired at this instant" in the want column of
// followupFigures.
const retired = "retired"

// followupFigures price OpenAI's older models on OpenAI's list and OpenAI's
// models on Bedrock, each point worked by hand as tokens x price / 1M. Every
// case is unpriced on the catalog as it was before these models were added.
var followupFigures = []figureCase{
	{
		// 100,000 x 2 + 100,000 x 0.50 + 100,000 x 8 = 0.20 + 0.05 + 0.80;
		// shut down with gpt-4o on 2027-01-14.
		name: "gpt-4.1 until its shutdown", host: "openai", logged: "gpt-4.1",
		tokens: callTokens{input: 100_000, cacheRead: 100_000, output: 100_000},
		points: []openAIPoint{
			{"2026-06-01T00:00:00Z", "1.05"},
			{"2027-01-13T23:59:00Z", "1.05"},
			{"2027-01-14T00:00:00Z", retired},
		},
	},
	{
		// Priority: 100,000 x 0.70 + 100,000 x 2.80 = 0.07 + 0.28.
		name: "gpt-4.1-mini snapshot in priority", host: "openai", logged: "openai/gpt-4.1-mini-2025-04-14", tier: Priority,
		tokens: callTokens{input: 100_000, output: 100_000},
		points: []openAIPoint{{"2026-09-01T00:00:00Z", "0.35"}},
	},
	{
		// 100,000 x 0.10 + 100,000 x 0.40 = 0.01 + 0.04; shut down 2026-10-23.
		name: "gpt-4.1-nano until its shutdown", host: "openai", logged: "gpt-4.1-nano",
		tokens: callTokens{input: 100_000, output: 100_000},
		points: []openAIPoint{
			{"2026-10-22T23:59:00Z", "0.05"},
			{"2026-10-23T00:00:00Z", retired},
		},
	},
	{
		// Before the cut 100,000 x 10 + 100,000 x 40 = 1.00 + 4.00; after
		// 100,000 x 2 + 100,000 x 8 = 0.20 + 0.80; shut down 2026-12-11.
		name: "o3 around its cut and shutdown", host: "openai", logged: "o3-2025-04-16",
		tokens: callTokens{input: 100_000, output: 100_000},
		points: []openAIPoint{
			{"2025-06-09T12:00:00Z", "5.00"},
			{"2025-06-10T00:00:00Z", "1.00"},
			{"2026-12-10T23:59:00Z", "1.00"},
			{"2026-12-11T00:00:00Z", retired},
		},
	},
	{
		// Flex at half: (100,000 x 2 + 100,000 x 0.50 + 100,000 x 8) / 2 =
		// (0.20 + 0.05 + 0.80) / 2.
		name: "o3 flex", host: "openai", logged: "openai/o3", tier: Flex,
		tokens: callTokens{input: 100_000, cacheRead: 100_000, output: 100_000},
		points: []openAIPoint{{"2026-09-01T00:00:00Z", "0.525"}},
	},
	{
		// Batch at half: (200,000 x 1.25 + 100,000 x 10) / 2 = (0.25 + 1.00) / 2.
		name: "gpt-5 batch until its shutdown", host: "openai", logged: "gpt-5-2025-08-07", tier: Batch,
		tokens: callTokens{input: 200_000, output: 100_000},
		points: []openAIPoint{
			{"2026-11-01T00:00:00Z", "0.625"},
			{"2026-12-11T00:00:00Z", retired},
		},
	},
	{
		// Priority: 100,000 x 0.45 + 100,000 x 3.60 = 0.045 + 0.36.
		name: "gpt-5-mini priority", host: "openai", logged: "gpt-5-mini", tier: Priority,
		tokens: callTokens{input: 100_000, output: 100_000},
		points: []openAIPoint{{"2026-09-01T00:00:00Z", "0.405"}},
	},
	{
		// 100,000 x 1.75 + 100,000 x 0.175 + 100,000 x 14 = 0.175 + 0.0175 + 1.40.
		name: "gpt-5.2 with cache reads", host: "", logged: "gpt-5.2",
		tokens: callTokens{input: 100_000, cacheRead: 100_000, output: 100_000},
		points: []openAIPoint{{"2026-12-06T12:00:00Z", "1.5925"}},
	},
	{
		// Short: 200,000 x 30 + 100,000 x 180 = 6 + 18.
		name: "gpt-5.5-pro", host: "openai", logged: "gpt-5.5-pro",
		tokens: callTokens{input: 200_000, output: 100_000},
		points: []openAIPoint{{"2026-12-06T12:00:00Z", "24.00"}},
	},
	{
		// Above 272K: 300,000 x 60 + 100,000 x 270 = 18 + 27.
		name: "gpt-5.5-pro long context", host: "openai", logged: "openai/gpt-5.5-pro-2026-04-23",
		tokens: callTokens{input: 300_000, output: 100_000},
		points: []openAIPoint{{"2026-12-06T12:00:00Z", "45.00"}},
	},
	{
		// EU data residency, 1.1 x: (200,000 x 30 + 100,000 x 180) x 1.1 = 24 x 1.1.
		name: "gpt-5.4-pro in the eu region", host: "openai", logged: "gpt-5.4-pro", region: "eu",
		tokens: callTokens{input: 200_000, output: 100_000},
		points: []openAIPoint{{"2026-10-01T00:00:00Z", "26.40"}},
	},
	{
		// us. profile, 1.10 x OpenAI's list: 200,000 x 5.50 + 100,000 x 33 =
		// 1.10 + 3.30; in the promotion 200,000 x 4.40 + 100,000 x 22 = 0.88
		// + 2.20; the list price again from 2026-12-01.
		name: "bedrock us. gpt-5.6-sol around its promotion", host: "bedrock", logged: "bedrock/us.openai.gpt-5.6-sol",
		tokens: callTokens{input: 200_000, output: 100_000},
		points: []openAIPoint{
			{"2026-07-12T23:59:00Z", unpriced},
			{"2026-08-20T12:00:00Z", "4.40"},
			{"2026-09-01T00:00:00Z", "3.08"},
			{"2026-12-02T00:00:00Z", "4.40"},
		},
	},
	{
		// global. profile in the promotion: 200,000 x 4 + 100,000 x 20 = 0.80 + 2.00.
		name: "bedrock global gpt-5.6-sol in its promotion", host: "bedrock", logged: "global.openai.gpt-5.6-sol",
		tokens: callTokens{input: 200_000, output: 100_000},
		points: []openAIPoint{{"2026-10-01T00:00:00Z", "2.80"}},
	},
	{
		// Above 272K in the promotion: 300,000 x 8 + 100,000 x 30 = 2.40 + 3.00.
		name: "bedrock global gpt-5.6-sol long context", host: "bedrock", logged: "global.openai.gpt-5.6-sol",
		tokens: callTokens{input: 300_000, output: 100_000},
		points: []openAIPoint{{"2026-10-01T00:00:00Z", "5.40"}},
	},
	{
		// In-Region Luna: 100,000 x 1.10 + 100,000 x 6.60 = 0.11 + 0.66; after
		// the cut of 2026-07-30 100,000 x 0.22 + 100,000 x 1.32 = 0.022 + 0.132.
		name: "bedrock gpt-5.6-luna around its cut", host: "bedrock", logged: "openai.gpt-5.6-luna",
		tokens: callTokens{input: 100_000, output: 100_000},
		points: []openAIPoint{
			{"2026-07-20T00:00:00Z", "0.77"},
			{"2026-08-01T00:00:00Z", "0.154"},
		},
	},
	{
		// in. profile with a cache write: 100,000 x 2.20 + 100,000 x 2.75 +
		// 100,000 x 13.20 = 0.22 + 0.275 + 1.32.
		name: "bedrock in. gpt-5.6-terra with cache writes", host: "bedrock", logged: "in.openai.gpt-5.6-terra",
		tokens: callTokens{input: 100_000, cacheWrite: 100_000, output: 100_000},
		points: []openAIPoint{{"2026-09-01T00:00:00Z", "1.815"}},
	},
	{
		// 100,000 x 5.50 + 100,000 x 0.55 + 100,000 x 33 = 0.55 + 0.055 + 3.30.
		name: "bedrock gpt-5.5 from its launch", host: "bedrock", logged: "openai.gpt-5.5",
		tokens: callTokens{input: 100_000, cacheRead: 100_000, output: 100_000},
		points: []openAIPoint{
			{"2026-05-31T23:59:00Z", unpriced},
			{"2026-06-15T00:00:00Z", "3.905"},
		},
	},
}

// TestFollowupFigures prices the calls of followupFigures on the embedded
// catalog.
func TestFollowupFigures(t *testing.T) {
	checkFigures(t, embeddedCatalog(t), followupFigures)
}
