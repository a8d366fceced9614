package ledger

import "testing"

func TestParseServiceTier(t *testing.T) {
	tests := []struct {
		name, in string
		want     ServiceTier
		ok       bool
	}{
		{"none logged", "", TierStandard, true},
		{"OpenAI's default", "default", TierStandard, true},
		{"batch", "batch", TierBatch, true},
		{"flex, any case", " Flex ", TierFlex, true},
		{"priority", "priority", TierPriority, true},
		{"OpenAI's Fast mode is priority", "fast", TierPriority, true},
		{"reserved capacity is not priced", "scale", TierStandard, false},
		{"an unknown tier", "turbo", TierStandard, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := ParseServiceTier(tt.in)
			if got != tt.want || ok != tt.ok {
				t.Errorf("ParseServiceTier(%q) = %s, %v; want %s, %v", tt.in, got, ok, tt.want, tt.ok)
			}
		})
	}
}
