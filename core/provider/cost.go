package provider

import (
	"encoding/json"
	"fmt"
	"math"
)

// Rates are a model's prices in dollars per million tokens, as models.json's
// "cost" object writes them.
type Rates struct {
	Input, Output, CacheRead, CacheWrite float64
}

// CostTier is a price that applies to a whole request whose prompt (input,
// cache reads and cache writes together) exceeds InputTokensAbove tokens.
type CostTier struct {
	InputTokensAbove float64
	Rates
}

// ModelCost is a model's "cost" entry: base rates and optional tiers.
type ModelCost struct {
	Rates
	Tiers []CostTier
}

// Priced holds what a number of tokens of each kind cost, in dollars.
type Priced struct {
	Input, Output, CacheRead, CacheWrite, Total float64
}

// Price is what the tokens cost at c's rates, the established harness's
// sum: the highest tier whose threshold the prompt exceeds applies to every
// token of the request. Every cache write is priced at cacheWrite; see
// PriceWrites for Anthropic's one-hour writes.
func (c *ModelCost) Price(input, output, cacheRead, cacheWrite int) Priced {
	return c.PriceWrites(input, output, cacheRead, cacheWrite, 0)
}

// PriceWrites is Price where long of the cacheWrite tokens were written
// for an hour (Anthropic's usage says how many), which Anthropic bills at
// twice the input price, as the established harness prices them.
func (c *ModelCost) PriceWrites(input, output, cacheRead, cacheWrite, long int) Priced {
	if c == nil {
		return Priced{}
	}
	rates, matched := c.Rates, -1.0
	prompt := float64(input + cacheRead + cacheWrite)
	for _, t := range c.Tiers {
		if prompt > t.InputTokensAbove && t.InputTokensAbove > matched {
			rates, matched = t.Rates, t.InputTokensAbove
		}
	}
	p := Priced{
		Input:      rates.Input / 1e6 * float64(input),
		Output:     rates.Output / 1e6 * float64(output),
		CacheRead:  rates.CacheRead / 1e6 * float64(cacheRead),
		CacheWrite: (rates.CacheWrite*float64(cacheWrite-long) + rates.Input*2*float64(long)) / 1e6,
	}
	p.Total = p.Input + p.Output + p.CacheRead + p.CacheWrite
	return p
}

// PromptCache is a model's "promptCache" entry: how long, in seconds, the
// provider keeps a prompt cache entry of each retention tier (0: unknown).
type PromptCache struct {
	Short, Long float64
}

// CacheTTL is the lifetime of the cache entry a request with retention
// writes on r's model: the model's declared lifetime for that tier ("" is
// short), or 0 when caching is off or the model declares none.
func (r Route) CacheTTL(retention string) float64 {
	if r.PromptCache == nil {
		return 0
	}
	switch retention {
	case CacheNone:
		return 0
	case CacheLong:
		return r.PromptCache.Long
	}
	return r.PromptCache.Short
}

// parseCost reads a "cost" object. In a model entry every rate is
// required, as in the established harness's schema; an override may set
// some of them (partial), the others coming from the model.
func parseCost(path string, raw map[string]json.RawMessage, partial bool) (*costConfig, error) {
	if raw == nil {
		return nil, nil
	}
	f := &fields{path: path, m: raw}
	c := &costConfig{}
	for _, k := range []struct {
		key string
		dst **float64
	}{{"input", &c.input}, {"output", &c.output}, {"cacheRead", &c.cacheRead}, {"cacheWrite", &c.cacheWrite}} {
		*k.dst = f.number(k.key)
		if *k.dst == nil && !partial && f.err == nil {
			f.fail(k.key, "required (dollars per million tokens)")
		}
	}
	if tiers, ok := raw["tiers"]; ok && !isNull(tiers) {
		var list []map[string]json.RawMessage
		if json.Unmarshal(tiers, &list) != nil {
			f.fail("tiers", "want a list of objects")
		}
		for i, t := range list {
			tf := &fields{path: fmt.Sprintf("%s.tiers[%d]", path, i), m: t}
			tier := CostTier{}
			for _, k := range []struct {
				key string
				dst *float64
			}{{"inputTokensAbove", &tier.InputTokensAbove}, {"input", &tier.Input}, {"output", &tier.Output}, {"cacheRead", &tier.CacheRead}, {"cacheWrite", &tier.CacheWrite}} {
				v := tf.number(k.key)
				if v == nil && tf.err == nil {
					tf.fail(k.key, "required")
				}
				if v != nil {
					*k.dst = *v
				}
			}
			if tf.err != nil {
				return nil, tf.err
			}
			c.tiers = append(c.tiers, tier)
		}
		c.hasTiers = true
	}
	return c, f.err
}

// costConfig is a parsed "cost" object, each rate nil when not set (an
// override's partial cost).
type costConfig struct {
	input, output, cacheRead, cacheWrite *float64
	tiers                                []CostTier
	hasTiers                             bool
}

// overlay sets the rates ov sets.
func (c *costConfig) overlay(ov *costConfig) *costConfig {
	if ov == nil {
		return c
	}
	if c == nil {
		c = &costConfig{}
	}
	out := *c
	for _, p := range []struct{ dst, src **float64 }{{&out.input, &ov.input}, {&out.output, &ov.output}, {&out.cacheRead, &ov.cacheRead}, {&out.cacheWrite, &ov.cacheWrite}} {
		if *p.src != nil {
			*p.dst = *p.src
		}
	}
	if ov.hasTiers {
		out.tiers, out.hasTiers = ov.tiers, true
	}
	return &out
}

// model is the cost a route carries; rates not set are 0.
func (c *costConfig) model() *ModelCost {
	if c == nil {
		return nil
	}
	val := func(p *float64) float64 {
		if p == nil {
			return 0
		}
		return *p
	}
	return &ModelCost{Rates: Rates{Input: val(c.input), Output: val(c.output), CacheRead: val(c.cacheRead), CacheWrite: val(c.cacheWrite)}, Tiers: c.tiers}
}

// parsePromptCache reads a "promptCache" object: lifetimes in seconds,
// each greater than 0.
func parsePromptCache(path string, raw map[string]json.RawMessage) (*PromptCache, error) {
	if raw == nil {
		return nil, nil
	}
	f := &fields{path: path, m: raw}
	pc := &PromptCache{}
	for _, k := range []struct {
		key string
		dst *float64
	}{{"short", &pc.Short}, {"long", &pc.Long}} {
		if v := f.number(k.key); v != nil {
			if *v <= 0 {
				f.fail(k.key, "want a lifetime in seconds greater than 0")
				continue
			}
			*k.dst = *v
		}
	}
	return pc, f.err
}

// overlayCache merges an override's lifetimes over the model's, key by key.
func overlayCache(base, ov *PromptCache) *PromptCache {
	if ov == nil {
		return base
	}
	out := PromptCache{}
	if base != nil {
		out = *base
	}
	if ov.Short > 0 {
		out.Short = ov.Short
	}
	if ov.Long > 0 {
		out.Long = ov.Long
	}
	return &out
}

// number reads a finite JSON number.
func (f *fields) number(key string) *float64 {
	raw, ok := f.m[key]
	if !ok || isNull(raw) {
		return nil
	}
	var n float64
	if json.Unmarshal(raw, &n) != nil || math.IsInf(n, 0) || math.IsNaN(n) {
		f.fail(key, "want a number")
		return nil
	}
	return &n
}
