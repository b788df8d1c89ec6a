package provider

import "testing"

// OpenRouter's Anthropic models go over the Messages API at its /api
// endpoint, with OpenRouter's session header, as the established harness
// sends them; its other models (and the :batch variants) over chat
// completions at /api/v1.
func TestOpenRouterAnthropicModelsUseMessages(t *testing.T) {
	m, err := ParseModels([]byte(`{}`), fakeEnv(map[string]string{"OPENROUTER_API_KEY": "sk-or"}))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ model, api, url string }{
		{"openrouter/anthropic/claude-sonnet-4.5", APIAnthropicMessages, "https://openrouter.ai/api/v1/messages?beta=true"},
		{"openrouter/~anthropic/claude-opus-latest", APIAnthropicMessages, "https://openrouter.ai/api/v1/messages?beta=true"},
		{"openrouter/anthropic/claude-haiku-4.5:batch", APIOpenAICompletions, "https://openrouter.ai/api/v1/chat/completions"},
		{"openrouter/openai/gpt-4o", APIOpenAICompletions, "https://openrouter.ai/api/v1/chat/completions"},
	} {
		sel, err := m.Select(Selection{Model: c.model})
		if err != nil {
			t.Fatalf("%s: %v", c.model, err)
		}
		url, _ := sel.Route.Endpoint()
		if sel.Route.API != c.api || url != c.url {
			t.Errorf("%s: %s %s, want %s %s", c.model, sel.Route.API, url, c.api, c.url)
		}
		if c.api != APIAnthropicMessages {
			continue
		}
		h := sel.Route.header()
		sel.Route.affinity(h, "s1")
		if h.Get("X-Api-Key") != "sk-or" || h.Get("X-Session-Id") != "s1" || h.Get("X-Session-Affinity") != "" {
			t.Errorf("%s: headers %v", c.model, h)
		}
	}
	// Anthropic itself gets no session header.
	sel, err := m.Select(Selection{Model: "anthropic/claude-x"})
	if err != nil {
		t.Fatal(err)
	}
	h := sel.Route.header()
	sel.Route.affinity(h, "s1")
	if h.Get("X-Session-Id") != "" || h.Get("X-Session-Affinity") != "" {
		t.Errorf("anthropic: headers %v", h)
	}
}
