package cliproxy

import (
	"testing"
	"time"
)

func TestPools(t *testing.T) {
	cfg := `transient-error-cooldown-seconds: 30
claude-api-key:
  - api-key: "sk-ant-1"
openai-compatibility:
  - name: "deepseek"
    disable-cooling: true
    api-key-entries:
      - api-key: "sk-ds-1"
      - api-key: "sk-ds-2"
`
	pools, rest, err := Pools("config.yaml", []byte(cfg))
	if err != nil {
		t.Fatal(err)
	}
	if rest != 30*time.Second {
		t.Errorf("rest = %v, want 30s", rest)
	}
	want := []Pool{
		{Name: "claude", Keys: 1, Cooling: true, Line: 3, Field: "claude-api-key", CoolingField: "claude-api-key[0].disable-cooling"},
		{Name: "deepseek", Keys: 2, Cooling: false, Line: 5, Field: "openai-compatibility[0]", CoolingField: "openai-compatibility[0].disable-cooling"},
	}
	if len(pools) != len(want) {
		t.Fatalf("pools = %+v, want %+v", pools, want)
	}
	for i := range want {
		if pools[i] != want[i] {
			t.Errorf("pool %d = %+v, want %+v", i, pools[i], want[i])
		}
	}
}
