package drift

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/tariffs"
)

// modelsDevFields maps the keys of a models.dev model's cost (USD per 1M
// tokens) to usage types. Audio prices (input_audio, output_audio) have no
// usage type: audio tokens are counted as text.
var modelsDevFields = map[string]tariffs.Usage{
	"input":       tariffs.Input,
	"cache_read":  tariffs.CacheRead,
	"cache_write": tariffs.CacheWrite,
	"output":      tariffs.Output,
	"reasoning":   tariffs.Reasoning,
}

// modelsDevHosts maps models.dev provider ids that are not spelled as the
// host they name. Any other id is read as tariffs.NormalizeHost reads a
// gateway's provider name ("openai", "google" → gemini, "deepseek").
var modelsDevHosts = map[string]string{
	"amazon-bedrock":          "bedrock",
	"google-vertex":           "vertex_ai",
	"google-vertex-anthropic": "vertex_ai",
	"github-models":           "github",
	"togetherai":              "together_ai",
}

// modelsDevHost returns the host a models.dev provider id names.
func modelsDevHost(id string) string {
	if h, ok := modelsDevHosts[id]; ok {
		return h
	}
	return tariffs.NormalizeHost(id)
}

// overTier is the prompt size of models.dev's context_over_200k prices,
// which only older copies give without cost.tiers.
const overTier = 200000

// isModelsDev reports whether a JSON object is models.dev's api.json: its
// first member is a provider, an object with a "models" object, where a
// LiteLLM table's members are model entries.
func isModelsDev(data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return false
	}
	if !dec.More() {
		return false
	}
	if _, err := dec.Token(); err != nil {
		return false
	}
	var first struct {
		Models json.RawMessage `json:"models"`
	}
	if dec.Decode(&first) != nil {
		return false
	}
	return bytes.HasPrefix(bytes.TrimSpace(first.Models), []byte{'{'})
}

// readModelsDev reads models.dev's api.json: an object of provider id →
// provider, each with an object of model id → model whose cost is in USD
// per 1M tokens.
func readModelsDev(ctx context.Context, name string, data []byte) (*Database, error) {
	db := &Database{Format: ModelsDev, File: name}
	w := &jsonWalk{name: name, data: data, dec: json.NewDecoder(bytes.NewReader(data))}
	w.dec.UseNumber()
	err := w.object(func(provider string) error {
		return w.object(func(key string) error {
			if key != "models" {
				return w.skip()
			}
			return w.object(func(model string) error {
				if err := ctx.Err(); err != nil {
					return err
				}
				return w.modelsDevModel(db, provider, model)
			})
		})
	})
	if err != nil {
		return nil, err
	}
	return db, nil
}

// modelsDevModel reads one model into db's entries, or its skipped.
func (w *jsonWalk) modelsDevModel(db *Database, provider, model string) error {
	line := lineAt(w.data, w.dec.InputOffset())
	var msg json.RawMessage
	if err := w.dec.Decode(&msg); err != nil {
		return w.fail(fmt.Errorf("model %q: %w", model, err))
	}
	db.Read++
	e := &Entry{Format: ModelsDev, File: w.name, Line: line, Name: model, Provider: provider, Host: modelsDevHost(provider)}
	r, err := modelsDevCost(msg)
	if err != nil {
		db.Skipped = append(db.Skipped, Skip{Name: model, Line: line, Reason: fmt.Sprintf("provider %s: %v", provider, err)})
		return nil
	}
	e.prices = []conditional{{rates: r}}
	db.Entries = append(db.Entries, e)
	return nil
}

// modelsDevCost reads a model's cost: flat prices, then its prompt-size
// tiers (cost.tiers, else the older context_over_200k). A model without
// a cost states no price.
func modelsDevCost(msg json.RawMessage) (rates, error) {
	var m struct {
		Cost map[string]json.RawMessage `json:"cost"`
	}
	var r rates
	if err := json.Unmarshal(msg, &m); err != nil {
		return r, errors.New("not an object of model facts")
	}
	if err := setModelsDev(&r.base, m.Cost); err != nil {
		return r, err
	}
	if tiers, ok := m.Cost["tiers"]; ok {
		return r, r.setModelsDevTiers(tiers)
	}
	if over, ok := m.Cost["context_over_200k"]; ok {
		var c map[string]json.RawMessage
		if err := json.Unmarshal(over, &c); err != nil {
			return r, errors.New("cost.context_over_200k is not an object")
		}
		return r, setModelsDev(r.tier(overTier), c)
	}
	return r, nil
}

// setModelsDevTiers reads cost.tiers: prices for calls whose context is
// over tier.size tokens, of type "context" (the one type the schema has).
func (r *rates) setModelsDevTiers(raw json.RawMessage) error {
	var tiers []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &tiers); err != nil {
		return errors.New("cost.tiers is not a list of objects")
	}
	for i, t := range tiers {
		var spec struct {
			Type string      `json:"type"`
			Size json.Number `json:"size"`
		}
		if err := json.Unmarshal(t["tier"], &spec); err != nil || (spec.Type != "" && spec.Type != "context") {
			return fmt.Errorf("cost.tiers[%d]: tier is not by context size", i)
		}
		size, err := perToken(spec.Size)
		if err != nil || !size.IsInteger() || !size.IsPositive() {
			return fmt.Errorf("cost.tiers[%d]: tier size %q is not a token count", i, spec.Size)
		}
		if err := setModelsDev(r.tier(size.IntPart()), t); err != nil {
			return fmt.Errorf("cost.tiers[%d]: %w", i, err)
		}
	}
	return nil
}

// setModelsDev sets the prices of cost object c, per 1M tokens as the
// table writes them, read from the number's text.
func setModelsDev(target *tariffs.Rates, c map[string]json.RawMessage) error {
	for k, u := range modelsDevFields {
		v, ok := c[k]
		if !ok || string(v) == "null" {
			continue
		}
		p, err := modelsDevPrice(v)
		if err != nil {
			return fmt.Errorf("cost.%s: %w", k, err)
		}
		target.Set(u, p)
	}
	return nil
}

// modelsDevPrice reads one price: a JSON number, exactly.
func modelsDevPrice(v json.RawMessage) (decimal.Decimal, error) {
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.UseNumber()
	var n any
	if err := dec.Decode(&n); err != nil {
		return decimal.Decimal{}, err
	}
	d, err := perToken(n)
	if err != nil {
		return d, err
	}
	if d.IsNegative() {
		return d, fmt.Errorf("%s is negative", d)
	}
	return d, nil
}

// jsonWalk walks a JSON document member by member, so that each model is
// read with its line.
type jsonWalk struct {
	name string
	data []byte
	dec  *json.Decoder
}

// object reads an object, calling member for each key with the decoder
// before the key's value; member must read or skip that value.
func (w *jsonWalk) object(member func(key string) error) error {
	tok, err := w.dec.Token()
	if err != nil {
		return w.fail(err)
	}
	if tok != json.Delim('{') {
		return w.fail(errors.New("models.dev's api.json is an object of providers, each with an object of models"))
	}
	for w.dec.More() {
		tok, err := w.dec.Token()
		if err != nil {
			return w.fail(err)
		}
		key, _ := tok.(string)
		if err := member(key); err != nil {
			return err
		}
	}
	if _, err := w.dec.Token(); err != nil {
		return w.fail(err)
	}
	return nil
}

// skip reads a value it has no use for.
func (w *jsonWalk) skip() error {
	var v json.RawMessage
	if err := w.dec.Decode(&v); err != nil {
		return w.fail(err)
	}
	return nil
}

// fail places err at the decoder's line in the file.
func (w *jsonWalk) fail(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("%s:%d: %v", w.name, lineAt(w.data, se.Offset), err)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return fmt.Errorf("%s:%d: %v", w.name, lineAt(w.data, w.dec.InputOffset()), err)
}
