package litellm

import (
	"testing"
	"time"
)

func TestGroups(t *testing.T) {
	cfg := `model_list:
  - model_name: gpt-4o
    litellm_params: {model: openai/gpt-4o}
  - model_name: ds-flash
    litellm_params: {model: deepseek/deepseek-v4-flash}
  - model_name: ds-flash
    litellm_params: {model: openrouter/deepseek/deepseek-v4-flash}
router_settings:
  cooldown_time: 30
`
	c, err := Parse("config.yaml", []byte(cfg))
	if err != nil {
		t.Fatal(err)
	}
	got := c.Groups()
	want := []Group{{Name: "gpt-4o", Deployments: 1, Line: 2, Cooling: true}, {Name: "ds-flash", Deployments: 2, Line: 4, Cooling: true}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("groups = %+v, want %+v", got, want)
	}
	if d, ok := c.CooldownTime(); !ok || d != 30*time.Second {
		t.Errorf("cooldown = %v %t, want 30s", d, ok)
	}
}
