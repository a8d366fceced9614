package metrics

import (
	"errors"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/gateway/litellm"
	"github.com/tokenfare/tokenfare/internal/state"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

// BlendWindow is the window the configured prices are held against: the
// 28 days before now, as blend's default.
const BlendWindow = 28 * 24 * time.Hour

// ErrNoDrift says the configured prices were not held against the blend:
// the state cannot give blend's figure exactly (a state written before it
// kept the calls' detail, or a tariff boundary inside a slot with calls
// on both sides). Update then reports every other figure and no
// tokenfare_config_price_off_ratio series, rather than a drift from
// another blend.
var ErrNoDrift = errors.New("no configured-price drift")

var descConfig = prometheus.NewDesc("tokenfare_config_price_off_ratio",
	"(configured price - today's blend) / today's blend, per LiteLLM config entry and price key; a price equal to the blend has no series.",
	[]string{"model_name", "field"}, nil)

// GatewayConfig is a LiteLLM config.yaml as its caller read it: the
// collector reads no file.
type GatewayConfig struct {
	File string // its path, naming it in errors
	Data []byte // its bytes
}

// key tells the config by its path and bytes: the drift is made again
// when either changes.
func (g *GatewayConfig) key() string { return g.File + "\x00" + string(g.Data) }

// configLabels name one configured price.
type configLabels struct{ modelName, field string }

// BlendFunc returns blend's prices (per-model mode) over the state's
// calls billed in [from, until), each priced at the tariff of cat in
// force at tariffAt: internal/run's StateBlend, at the billing instant
// the state's calls were read with. An error wrapping state.ErrNotKept
// or pricing.ErrNotExact says the state cannot give that blend exactly.
type BlendFunc func(cat *tariffs.Catalog, from, until, tariffAt time.Time) (map[*tariffs.Model]*tariffs.Rates, error)

// configDrift returns how far each price of the LiteLLM config g is from
// blend's prices over the last BlendWindow at the tariff in force at now,
// relative to them: what blend --write --check compares.
func configDrift(g *GatewayConfig, blend BlendFunc, cat *tariffs.Catalog, now time.Time) (map[configLabels]decimal.Decimal, error) {
	cfg, err := litellm.Parse(g.File, g.Data)
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	path := g.File
	prices, err := blendOf(blend, cat, now)
	if err != nil {
		return nil, err
	}
	u, err := cfg.Update(litellm.UpdateOptions{Catalog: cat, Prices: prices, At: now})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	out := map[configLabels]decimal.Decimal{}
	for _, c := range u.Changes {
		if c.Block || c.Old == "" || c.NewPrice.IsZero() {
			continue
		}
		out[configLabels{c.ModelName, c.Field}] = c.OldPrice.Sub(c.NewPrice).Div(c.NewPrice)
	}
	return out, nil
}

// blendOf returns blend's prices over the state's calls billed in the
// BlendWindow before now, each priced at the tariff in force at now. A
// state that cannot give that blend exactly is an error wrapping
// ErrNoDrift, not a blend of the slots' tokens alone.
func blendOf(blend BlendFunc, cat *tariffs.Catalog, now time.Time) (map[*tariffs.Model]*tariffs.Rates, error) {
	prices, err := blend(cat, now.Add(-BlendWindow), now, now)
	if errors.Is(err, state.ErrNotKept) || errors.Is(err, pricing.ErrNotExact) {
		return nil, fmt.Errorf("%w: %w", ErrNoDrift, err)
	}
	return prices, err
}
