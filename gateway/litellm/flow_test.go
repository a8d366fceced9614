package litellm

import "testing"

// TestFlowMapping writes a block of plain pairs as a flow mapping, so that
// a price block (search_context_cost_per_query) can be added to a model's
// litellm_params written in flow style; anything else is refused.
func TestFlowMapping(t *testing.T) {
	tests := []struct {
		name  string
		block []string
		want  string
		ok    bool
	}{
		{"search context sizes", []string{"search_context_size_low: 0.01", "search_context_size_medium: 0.01"},
			"{search_context_size_low: 0.01, search_context_size_medium: 0.01}", true},
		{"a nested line", []string{"a:", "  b: 1"}, "", false},
		{"a value that is a flow collection", []string{"a: [1, 2]"}, "", false},
		{"a line without a value", []string{"- 1"}, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := flowMapping(tt.block)
			if got != tt.want || ok != tt.ok {
				t.Errorf("flowMapping(%q) = %q, %v; want %q, %v", tt.block, got, ok, tt.want, tt.ok)
			}
		})
	}
}
