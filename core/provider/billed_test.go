package provider

import (
	"context"
	"encoding/json"
	"testing"
)

// TestOpenRouterBilledCost: OpenRouter's accounting replaces the computed
// total as the established harness takes it — the cost alone for
// OpenRouter's key, plus the upstream cost for the user's own key (the
// prompt and completion parts when the upstream total is null) — and
// anything incomplete or invalid is ignored.
func TestOpenRouterBilledCost(t *testing.T) {
	for _, c := range []struct {
		usage string
		want  float64
		ok    bool
	}{
		{`{"cost":0.25,"is_byok":false}`, 0.25, true},
		{`{"cost":0.25,"is_byok":true,"cost_details":{"upstream_inference_cost":1.5}}`, 1.75, true},
		{`{"cost":0.25,"is_byok":true,"cost_details":{"upstream_inference_cost":null,"upstream_inference_prompt_cost":0.5,"upstream_inference_completions_cost":0.25}}`, 1, true},
		{`{"cost":0.25,"is_byok":true,"cost_details":{"upstream_inference_cost":null,"upstream_inference_prompt_cost":0.5}}`, 0, false},
		{`{"cost":0.25,"is_byok":true,"cost_details":{}}`, 0, false},
		{`{"cost":0.25,"is_byok":true}`, 0, false},
		{`{"cost":0.25}`, 0, false},
		{`{"cost":-1,"is_byok":false}`, 0, false},
		{`{"cost":"0.25","is_byok":false}`, 0, false},
		{`{"is_byok":false}`, 0, false},
	} {
		var u openAIUsage
		if err := json.Unmarshal([]byte(c.usage), &u); err != nil {
			t.Fatal(err)
		}
		got, ok := u.billed()
		if ok != c.ok || got != c.want {
			t.Errorf("%s: %v %v, want %v %v", c.usage, got, ok, c.want, c.ok)
		}
	}

	const reply = `data: {"id":"gen-1","model":"x/y","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":"stop"}]}

data: {"id":"gen-1","model":"x/y","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":2,"cost":0.0042,"is_byok":false}}

data: [DONE]

`
	for _, route := range []struct {
		provider string
		billed   bool
	}{{"openrouter", true}, {"local", false}} {
		srv, _ := fakeServer(t, sse(reply))
		r := openAIRoute(srv.URL)
		r.Provider, r.ModelID = route.provider, "x/y"
		resp, err := testClient(srv).StreamEvents(context.Background(), r, hello, nil)
		if err != nil {
			t.Fatal(err)
		}
		if resp.Usage.Billed != route.billed || (route.billed && resp.Usage.BilledTotal != 0.0042) || !resp.Usage.Reported {
			t.Errorf("%s: usage %+v", route.provider, resp.Usage)
		}
	}
}
