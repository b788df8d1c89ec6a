package provider

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func fakeEnv(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

var testEnv = fakeEnv(map[string]string{
	"MY_ANTHROPIC_KEY": "sk-ant-env",
	"ROUTER_KEY":       "sk-router",
	"ROUTER_SECRET":    "s3",
	"OPENAI_API_KEY":   "sk-openai-env",
})

func loadTestModels(t *testing.T) *Models {
	t.Helper()
	m, err := LoadModels(filepath.Join("testdata", "models.json"), testEnv)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestLoadModelsKeepsFileOrder(t *testing.T) {
	m := loadTestModels(t)
	if !m.Found {
		t.Fatal("Found is false")
	}
	want := []string{"ollama/qwen3:8b", "ollama/shared", "anthropic/claude-sonnet-4-5", "router/meta-llama/llama-3-70b", "router/shared", "router/gem"}
	if got := m.Specs(); !reflect.DeepEqual(got, want) {
		t.Errorf("specs %q, want %q", got, want)
	}
}

func TestResolve(t *testing.T) {
	m := loadTestModels(t)
	cases := []struct {
		spec string
		want Route
	}{
		{"", Route{Provider: "ollama", ModelID: "qwen3:8b", BaseURL: "http://localhost:11434/v1", API: APIOpenAICompletions, APIKey: "ollama", SystemInHistory: true, Name: "Qwen 3 8B", ContextWindow: 32768, MaxTokens: 8192}},
		{"qwen3:8b", Route{Provider: "ollama", ModelID: "qwen3:8b", BaseURL: "http://localhost:11434/v1", API: APIOpenAICompletions, APIKey: "ollama", SystemInHistory: true, Name: "Qwen 3 8B", ContextWindow: 32768, MaxTokens: 8192}},
		{"ollama/shared", Route{Provider: "ollama", ModelID: "shared", BaseURL: "http://localhost:11434/v1", API: APIOpenAICompletions, APIKey: "ollama", SystemInHistory: true, MaxTokensField: "max_tokens"}},
		{"claude-sonnet-4-5", Route{Provider: "anthropic", ModelID: "claude-sonnet-4-5", BaseURL: DefaultAnthropicBaseURL, API: APIAnthropicMessages, APIKey: "sk-ant-env", MaxTokens: 64000,
			Headers: map[string]string{"anthropic-beta": "prompt-caching-2024-07-31"}}},
		{"anthropic/claude-opus-9", Route{Provider: "anthropic", ModelID: "claude-opus-9", BaseURL: DefaultAnthropicBaseURL, API: APIAnthropicMessages, APIKey: "sk-ant-env",
			Headers: map[string]string{"anthropic-beta": "prompt-caching-2024-07-31"}}},
		{"openai/gpt-x", Route{Provider: "openai", ModelID: "gpt-x", BaseURL: DefaultOpenAIBaseURL, API: APIOpenAICompletions, APIKey: "sk-openai-env", SystemInHistory: true}},
		{" router/meta-llama/llama-3-70b ", Route{Provider: "router", ModelID: "meta-llama/llama-3-70b", BaseURL: "https://router.example/api/v1/", API: APIOpenAICompletions, APIKey: "sk-router", SystemInHistory: true,
			Headers: map[string]string{"X-Title": "pi", "X-Secret": "s3", "X-Model": "m"}}},
		{"meta-llama/llama-3-70b", Route{Provider: "router", ModelID: "meta-llama/llama-3-70b", BaseURL: "https://router.example/api/v1/", API: APIOpenAICompletions, APIKey: "sk-router", SystemInHistory: true,
			Headers: map[string]string{"X-Title": "pi", "X-Secret": "s3", "X-Model": "m"}}},
	}
	for _, c := range cases {
		got, err := m.Resolve(c.spec)
		if err != nil {
			t.Errorf("%q: %v", c.spec, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q:\n got %+v\nwant %+v", c.spec, got, c.want)
		}
	}
}

func TestResolveErrors(t *testing.T) {
	m := loadTestModels(t)
	cases := []struct{ spec, want string }{
		{"shared", `ambiguous: it is listed as ollama/shared and router/shared`},
		{"nope", `model "nope" is not configured (known: ollama/qwen3:8b`},
		{"ollama/nope", `provider "ollama" has no model "nope" (known: ollama/qwen3:8b, ollama/shared)`},
		{"mystery/x", `no provider "mystery"`},
		{"openai/", "missing model id"},
		{"router/gem", `unsupported api "google-generative-ai"`},
	}
	for _, c := range cases {
		_, err := m.Resolve(c.spec)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.spec, err, c.want)
		}
	}
}

func TestMissingModelsFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "models.json")
	m, err := LoadModels(path, fakeEnv(map[string]string{"ANTHROPIC_API_KEY": "k"}))
	if err != nil {
		t.Fatal(err)
	}
	if m.Found || len(m.Providers) != 0 {
		t.Fatalf("got %+v", m)
	}
	_, err = m.Resolve("")
	for _, w := range []string{"no model configured", path, "--dry-run", "--model openai/<id>"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("error %v lacks %q", err, w)
		}
	}
	if _, err := m.Resolve("gpt-x"); err == nil || !strings.Contains(err.Error(), "models.json") && !strings.Contains(err.Error(), path) {
		t.Errorf("bare id without config: %v", err)
	}
	r, err := m.Resolve("anthropic/claude-x")
	if err != nil || r.APIKey != "k" || r.API != APIAnthropicMessages || r.BaseURL != DefaultAnthropicBaseURL {
		t.Errorf("builtin anthropic: %+v %v", r, err)
	}
	r, err = m.Resolve("openai/gpt-x")
	if err != nil || r.APIKey != "" || !r.AcceptsSystemInHistory() {
		t.Errorf("builtin openai without key: %+v %v", r, err)
	}
}

func TestParseModelsErrors(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{`, "invalid JSON"},
		{`[]`, "invalid JSON"},
		{`{"providers": []}`, `"providers" must be an object`},
		{`{"providers": {"a": {"models": [{"name": "x"}]}}}`, `provider "a": model 0 has no id`},
		{`{"providers": {"a": {"baseUrl": 3}}}`, `provider "a"`},
		{`{"providers": {"a": {}, "a": {}}}`, `provider "a" is listed twice`},
	}
	for _, c := range cases {
		_, err := ParseModels([]byte(c.in), testEnv)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.in, err, c.want)
		}
	}
	for _, ok := range []string{"", "  \n", `{}`, `{"providers": null}`, `{"providers": {}}`, `{"other": 1}`} {
		m, err := ParseModels([]byte(ok), testEnv)
		if err != nil || len(m.Providers) != 0 {
			t.Errorf("%q: %+v %v", ok, m, err)
		}
	}
	path := filepath.Join(t.TempDir(), "models.json")
	os.WriteFile(path, []byte("{nope"), 0o644)
	if _, err := LoadModels(path, nil); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("bad file error does not name it: %v", err)
	}
}

func TestResolveValue(t *testing.T) {
	env := fakeEnv(map[string]string{"KEY": "v", "lower_key": "lv"})
	cases := []struct{ in, want string }{
		{"", ""},
		{"sk-literal", "sk-literal"},
		{"KEY", "v"},
		{"UNSET_KEY", "UNSET_KEY"},
		{"$KEY", "v"},
		{"${KEY}", "v"},
		{"$UNSET", ""},
		{"$lower_key", "lv"},
		{"lower_key", "lower_key"},
		{"$not a name", "$not a name"},
		{"${KEY", "${KEY"},
	}
	for _, c := range cases {
		got, err := resolveValue(c.in, env)
		if err != nil || got != c.want {
			t.Errorf("%q: got %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	m, _ := ParseModels([]byte(`{"providers":{"p":{"baseUrl":"http://x","api":"openai-completions","apiKey":"!pass show key","models":[{"id":"m"}]}}}`), env)
	if _, err := m.Resolve("p/m"); err == nil || !strings.Contains(err.Error(), "shell command") {
		t.Errorf("command apiKey: %v", err)
	}
}
