package provider

import (
	"strings"
	"testing"
)

func TestEndpoint(t *testing.T) {
	cases := []struct {
		api, base, want string
	}{
		{APIOpenAICompletions, "https://api.openai.com/v1", "https://api.openai.com/v1/chat/completions"},
		{APIOpenAICompletions, "https://api.openai.com/v1/", "https://api.openai.com/v1/chat/completions"},
		{APIOpenAICompletions, "http://localhost:11434/v1//", "http://localhost:11434/v1/chat/completions"},
		{APIOpenAICompletions, "http://host:8080", "http://host:8080/chat/completions"},
		{APIOpenAICompletions, " https://x.example/openai/v1?api-version=2024 ", "https://x.example/openai/v1/chat/completions?api-version=2024"},
		{APIAnthropicMessages, "https://api.anthropic.com", "https://api.anthropic.com/v1/messages?beta=true"},
		{APIAnthropicMessages, "https://api.anthropic.com/", "https://api.anthropic.com/v1/messages?beta=true"},
		{APIAnthropicMessages, "https://api.anthropic.com/v1", "https://api.anthropic.com/v1/messages?beta=true"},
		{APIAnthropicMessages, "https://proxy.example/anthropic/v1/", "https://proxy.example/anthropic/v1/messages?beta=true"},
		{APIAnthropicMessages, "https://proxy.example/anthropic", "https://proxy.example/anthropic/v1/messages?beta=true"},
	}
	for _, c := range cases {
		got, err := Route{API: c.api, BaseURL: c.base}.Endpoint()
		if err != nil {
			t.Errorf("%s %q: %v", c.api, c.base, err)
			continue
		}
		if got != c.want {
			t.Errorf("%s %q: got %q, want %q", c.api, c.base, got, c.want)
		}
	}
}

func TestEndpointErrors(t *testing.T) {
	cases := []struct {
		r    Route
		want string
	}{
		{Route{API: APIOpenAICompletions}, "no base URL"},
		{Route{API: APIOpenAICompletions, BaseURL: "api.openai.com/v1"}, "absolute http"},
		{Route{API: APIOpenAICompletions, BaseURL: "ftp://x/v1"}, "absolute http"},
		{Route{API: APIOpenAICompletions, BaseURL: "http://[::1"}, "invalid base URL"},
		{Route{BaseURL: "http://x"}, "no api"},
		{Route{API: "bedrock-converse-stream", BaseURL: "http://x"}, "unsupported api"},
	}
	for _, c := range cases {
		_, err := c.r.Endpoint()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.r, err, c.want)
		}
	}
}

func TestHeaders(t *testing.T) {
	oa := Route{API: APIOpenAICompletions, APIKey: "k1", Headers: map[string]string{"X-Title": "pi"}}.header()
	if got := oa.Get("Authorization"); got != "Bearer k1" {
		t.Errorf("openai Authorization = %q", got)
	}
	if oa.Get("X-Api-Key") != "" || oa.Get("Anthropic-Version") != "" {
		t.Error("openai request carries Anthropic headers")
	}
	if oa.Get("X-Title") != "pi" || oa.Get("Content-Type") != "application/json" {
		t.Errorf("openai headers: %v", oa)
	}
	an := Route{API: APIAnthropicMessages, APIKey: "k2"}.header()
	if an.Get("X-Api-Key") != "k2" || an.Get("Anthropic-Version") != "2023-06-01" || an.Get("Authorization") != "" {
		t.Errorf("anthropic headers: %v", an)
	}
	none := Route{API: APIOpenAICompletions}.header()
	if _, ok := none["Authorization"]; ok {
		t.Error("Authorization sent without a key")
	}
	over := Route{API: APIAnthropicMessages, APIKey: "k", Headers: map[string]string{"anthropic-version": "2024-01-01"}}.header()
	if over.Get("Anthropic-Version") != "2024-01-01" {
		t.Errorf("configured header does not override: %v", over)
	}
}

func TestDescribeRequestRedacts(t *testing.T) {
	r := Route{API: APIOpenAICompletions, BaseURL: "https://api.openai.com/v1/", APIKey: "sk-live-123",
		Headers: map[string]string{"X-Custom-Token": "tok", "X-Echo": "key is sk-live-123", "X-Title": "pi"}}
	info, err := DescribeRequest(r)
	if err != nil {
		t.Fatal(err)
	}
	if info.Method != "POST" || info.URL != "https://api.openai.com/v1/chat/completions" {
		t.Errorf("got %s %s", info.Method, info.URL)
	}
	for name, vals := range info.Header {
		for _, v := range vals {
			if strings.Contains(v, "sk-live-123") || v == "tok" {
				t.Errorf("header %s leaks a secret: %q", name, v)
			}
		}
	}
	if got := info.Header.Get("Authorization"); got != "Bearer [redacted]" {
		t.Errorf("Authorization = %q", got)
	}
	if info.Header.Get("X-Title") != "pi" || info.Header.Get("X-Echo") != "key is [redacted]" {
		t.Errorf("headers: %v", info.Header)
	}
	an, _ := DescribeRequest(Route{API: APIAnthropicMessages, BaseURL: "https://api.anthropic.com", APIKey: "sk-ant"})
	if an.Header.Get("X-Api-Key") != "[redacted]" || an.Header.Get("Anthropic-Version") != anthropicVersion {
		t.Errorf("anthropic: %v", an.Header)
	}
}
