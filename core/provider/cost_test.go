package provider

import (
	"math"
	"strings"
	"testing"
)

// The cost and promptCache fields reach the route, an override merging
// over the model key by key, as the established harness composes them.
func TestCostAndPromptCacheReachRoute(t *testing.T) {
	m, err := ParseModels([]byte(`{"providers": {"p": {"baseUrl": "http://h/v1", "api": "anthropic-messages", "apiKey": "k",
		"models": [{"id": "m", "cost": {"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75,
			"tiers": [{"inputTokensAbove": 200000, "input": 6, "output": 22.5, "cacheRead": 0.6, "cacheWrite": 7.5}]},
			"promptCache": {"short": 300}},
			{"id": "bare"}],
		"modelOverrides": {"m": {"cost": {"output": 30}, "promptCache": {"long": 3600}}}}}}`), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	r, err := m.Resolve("p/m")
	if err != nil {
		t.Fatal(err)
	}
	if r.Cost == nil || r.Cost.Input != 3 || r.Cost.Output != 30 || r.Cost.CacheRead != 0.3 || r.Cost.CacheWrite != 3.75 || len(r.Cost.Tiers) != 1 {
		t.Fatalf("cost = %+v", r.Cost)
	}
	if r.CacheTTL("") != 300 || r.CacheTTL(CacheShort) != 300 || r.CacheTTL(CacheLong) != 3600 || r.CacheTTL(CacheNone) != 0 {
		t.Errorf("lifetimes = %+v", r.PromptCache)
	}
	// 1M input, 1M output below the tier: 3 + 30 dollars.
	if p := r.Cost.Price(1000, 1000000, 0, 0); math.Abs(p.Total-(0.003+30)) > 1e-9 {
		t.Errorf("price below the tier = %+v", p)
	}
	// Above 200k prompt tokens the tier prices every token.
	if p := r.Cost.Price(100000, 0, 150000, 0); math.Abs(p.Total-(0.6+0.09)) > 1e-9 {
		t.Errorf("price in the tier = %+v", p)
	}
	// Anthropic's one-hour writes cost twice the input price.
	if p := r.Cost.PriceWrites(0, 0, 0, 100000, 40000); math.Abs(p.CacheWrite-(0.06*3.75+0.04*6)) > 1e-9 {
		t.Errorf("one-hour writes = %+v", p)
	}
	bare, err := m.Resolve("p/bare")
	if err != nil {
		t.Fatal(err)
	}
	if bare.Cost != nil || bare.CacheTTL("") != 0 || bare.Cost.Price(10, 10, 10, 10).Total != 0 {
		t.Errorf("a model without cost or promptCache: %+v %+v", bare.Cost, bare.PromptCache)
	}
}

func TestCostAndPromptCacheErrors(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"id": "m", "cost": {"input": 1, "output": 1, "cacheRead": 1}}`, `providers.a.models[0].cost.cacheWrite: required`},
		{`{"id": "m", "cost": {"input": "1", "output": 1, "cacheRead": 1, "cacheWrite": 1}}`, `providers.a.models[0].cost.input: want a number`},
		{`{"id": "m", "cost": [1]}`, `providers.a.models[0].cost: want an object`},
		{`{"id": "m", "cost": {"input": 1, "output": 1, "cacheRead": 1, "cacheWrite": 1, "tiers": [{"input": 1}]}}`, `cost.tiers[0].inputTokensAbove: required`},
		{`{"id": "m", "promptCache": {"short": 0}}`, `providers.a.models[0].promptCache.short: want a lifetime in seconds greater than 0`},
		{`{"id": "m", "promptCache": {"long": "1h"}}`, `promptCache.long: want a number`},
	}
	for _, c := range cases {
		_, err := ParseModels([]byte(`{"providers": {"a": {"baseUrl": "http://h", "models": [`+c.in+`]}}}`), nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.in, err, c.want)
		}
	}
	// An override may set some rates only.
	if _, err := ParseModels([]byte(`{"providers": {"a": {"baseUrl": "http://h", "modelOverrides": {"m": {"cost": {"input": 2}}}}}}`), nil); err != nil {
		t.Errorf("a partial override cost: %v", err)
	}
}
