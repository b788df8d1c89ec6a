package provider

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
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

// routeView is the part of a Route these tests compare.
type routeView struct {
	Provider, ModelID, BaseURL, API, APIKey string
	Headers                                 map[string]string
	InHistory                               bool
	MaxTokens                               int
	MaxTokensField                          string
	Thinking                                string
}

func viewOf(r Route) routeView {
	return routeView{r.Provider, r.ModelID, r.BaseURL, r.API, r.APIKey, r.Headers, r.AcceptsSystemInHistory(), r.MaxTokens, r.MaxTokensField, r.Thinking}
}

func TestResolve(t *testing.T) {
	m := loadTestModels(t)
	routerHeaders := map[string]string{"X-Title": "pi", "X-Secret": "s3", "X-Model": "m", "Authorization": "Bearer sk-router"}
	cases := []struct {
		spec string
		want routeView
	}{
		{"", routeView{"ollama", "qwen3:8b", "http://localhost:11434/v1", APIOpenAICompletions, "ollama", nil, false, 8192, "max_completion_tokens", ""}},
		{"qwen3:8b", routeView{"ollama", "qwen3:8b", "http://localhost:11434/v1", APIOpenAICompletions, "ollama", nil, false, 8192, "max_completion_tokens", ""}},
		{"ollama/shared", routeView{"ollama", "shared", "http://localhost:11434/v1", APIOpenAICompletions, "ollama", nil, false, 16384, "max_tokens", ""}},
		{"claude-sonnet-4-5", routeView{"anthropic", "claude-sonnet-4-5", defaultAnthropicBaseURL, APIAnthropicMessages, "sk-ant-env",
			map[string]string{"anthropic-beta": "prompt-caching-2024-07-31"}, false, 64000, "max_completion_tokens", ""}},
		{"anthropic/claude-opus-9", routeView{"anthropic", "claude-opus-9", defaultAnthropicBaseURL, APIAnthropicMessages, "sk-ant-env",
			map[string]string{"anthropic-beta": "prompt-caching-2024-07-31"}, false, 16384, "max_completion_tokens", ""}},
		{"openai/gpt-x", routeView{"openai", "gpt-x", DefaultOpenAIBaseURL, APIOpenAIResponses, "sk-openai-env", nil, false, 16384, "max_completion_tokens", ""}},
		{" router/meta-llama/llama-3-70b ", routeView{"router", "meta-llama/llama-3-70b", "https://router.example/api/v1/", APIOpenAICompletions, "sk-router", routerHeaders, true, 16384, "max_completion_tokens", ""}},
		{"meta-llama/llama-3-70b", routeView{"router", "meta-llama/llama-3-70b", "https://router.example/api/v1/", APIOpenAICompletions, "sk-router", routerHeaders, true, 16384, "max_completion_tokens", ""}},
		{"router/gem", routeView{"router", "gem", "https://router.example/api/v1/", APIGoogleGenerativeAI, "sk-router",
			map[string]string{"X-Title": "pi", "X-Secret": "s3", "Authorization": "Bearer sk-router"}, false, 16384, "max_completion_tokens", ""}},
	}
	for _, c := range cases {
		got, err := m.Resolve(c.spec)
		if err != nil {
			t.Errorf("%q: %v", c.spec, err)
			continue
		}
		if !reflect.DeepEqual(viewOf(got), c.want) {
			t.Errorf("%q:\n got %+v\nwant %+v", c.spec, viewOf(got), c.want)
		}
	}
}

func TestResolveErrors(t *testing.T) {
	m := loadTestModels(t)
	cases := []struct{ spec, want string }{
		{"shared", `matches several providers: ollama/shared, router/shared`},
		{"nope", `model "nope" not found (configured: ollama/qwen3:8b`},
		{"mystery/x", `model "mystery/x" not found`},
		{"openai/", "missing model id"},
	}
	for _, c := range cases {
		_, err := m.Resolve(c.spec)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.spec, err, c.want)
		}
	}
	// An API pi cannot speak is refused when chosen, naming the field.
	bad, err := ParseModels([]byte(`{"providers":{"b":{"baseUrl":"http://h","api":"bedrock-converse-stream","models":[{"id":"x"},{"id":"y","api":"mistral-conversations"}]}}}`), testEnv)
	if err != nil {
		t.Fatal(err)
	}
	for spec, want := range map[string]string{"b/x": `providers.b.api "bedrock-converse-stream" is an API pi cannot speak`, "b/y": `providers.b.models[id=y].api "mistral-conversations"`} {
		if _, err := bad.Resolve(spec); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", spec, err, want)
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
	if _, err := m.Resolve("gpt-x"); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("bare id without config: %v", err)
	}
	r, err := m.Resolve("anthropic/claude-x")
	if err != nil || r.APIKey != "k" || r.API != APIAnthropicMessages || r.BaseURL != defaultAnthropicBaseURL {
		t.Errorf("builtin anthropic: %+v %v", r, err)
	}
	r, err = m.Resolve("openai/gpt-x")
	if err != nil || r.APIKey != "" || r.AcceptsSystemInHistory() || !strings.Contains(r.KeyProblem, "OPENAI_API_KEY") {
		t.Errorf("builtin openai without key: %+v %v", r, err)
	}
}

func TestParseModelsErrors(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{`, "invalid JSON"},
		{`[]`, "must hold a JSON object"},
		{`{"providers": []}`, `providers: want an object`},
		{`{"providers": {"a": {"models": [{"name": "x"}]}}}`, `providers.a.models[0].id: every model needs an id`},
		{`{"providers": {"a": {"baseUrl": 3}}}`, `providers.a.baseUrl: want a string`},
		{`{"providers": {"a": {"baseUrl": "x"}, "a": {"baseUrl": "y"}}}`, `provider "a" is listed twice`},
		{`{"providers": {"a": {}}}`, `providers.a: set at least one of`},
		{`{"providers": {"a": {"models": [{"id": "m", "contextWindow": "big"}]}}}`, `providers.a.models[0].contextWindow: want a number greater than 0`},
		{`{"providers": {"a": {"models": [{"id": "m", "maxTokens": -1}]}}}`, `providers.a.models[0].maxTokens`},
		{`{"providers": {"a": {"models": [{"id": "m", "reasoning": "yes"}]}}}`, `providers.a.models[0].reasoning: want true or false`},
		{`{"providers": {"a": {"models": [{"id": "m", "input": ["text", "audio"]}]}}}`, `providers.a.models[0].input`},
		{`{"providers": {"a": {"models": [{"id": "m", "thinkingLevelMap": {"huge": "x"}}]}}}`, `unknown level "huge"`},
		{`{"providers": {"a": {"models": [{"id": "m", "thinkingLevelMap": {"high": 3}}]}}}`, `level "high": want a string or null`},
		{`{"providers": {"a": {"models": [{"id": "m", "samplingParams": [1]}]}}}`, `providers.a.models[0].samplingParams: want an object`},
		{`{"providers": {"a": {"models": [{"id": "m", "samplingParamsByThinkingLevel": {"loud": {}}}]}}}`, `unknown level "loud"`},
		{`{"providers": {"a": {"authHeader": "yes", "baseUrl": "http://h"}}}`, `providers.a.authHeader: want true or false`},
		{`{"providers": {"a": {"baseUrl": "http://h", "headers": {"X": 1}}}}`, `providers.a.headers: want an object of strings`},
		{`{"providers": {"a": {"baseUrl": "http://h", "compat": {"maxTokensField": "max_output"}}}}`, `providers.a.compat.maxTokensField`},
		{`{"providers": {"a": {"baseUrl": "http://h", "compat": {"thinkingFormat": "magic"}}}}`, `providers.a.compat.thinkingFormat: unknown format "magic"`},
		{`{"providers": {"a": {"baseUrl": "http://h", "compat": {"supportsDeveloperRole": "no"}}}}`, `providers.a.compat.supportsDeveloperRole`},
		{`{"providers": {"a": {"oauth": "radius"}}}`, `"baseUrl" is required when "oauth" is set`},
		{`{"providers": {"a": {"baseUrl": "http://h", "oauth": "github"}}}`, `providers.a.oauth`},
		{`{"providers": {"openai": {"modelOverrides": {"gpt": {"id": "x"}}}}}`, `modelOverrides["gpt"].id: a model override cannot change`},
		{`{"providers": {"a": {"models": [{"id": "m", "cost": 3}]}}}`, `providers.a.models[0].cost: want an object`},
		{`{"$schema": 1}`, `$schema: want a string`},
	}
	if len(cases) == 0 {
		t.Fatal("no cases")
	}
	for _, c := range cases {
		_, err := ParseModels([]byte(c.in), testEnv)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.in, err, c.want)
		}
	}
	for _, ok := range []string{"", "  \n", `{}`, `{"providers": null}`, `{"providers": {}}`, `{"other": 1}`,
		"{\"providers\": {}, // trailing comment\n}", "{\"providers\": {\"openai\": {\"baseUrl\": \"http://x//y\",},},}"} {
		if _, err := ParseModels([]byte(ok), testEnv); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	path := filepath.Join(t.TempDir(), "models.json")
	os.WriteFile(path, []byte("{nope"), 0o644)
	if _, err := LoadModels(path, nil); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("bad file error does not name it: %v", err)
	}
}

func TestStripJSONComments(t *testing.T) {
	cases := []struct{ in, want string }{
		{"{\"a\": \"//not\", // yes\n\"b\": 1,}", "{\"a\": \"//not\",       \n\"b\": 1 }"},
		{`["a\"//b",]`, `["a\"//b" ]`},
		{"[1, // c\n]", "[1      \n]"},
		{`{"a": [1,2,],}`, `{"a": [1,2 ] }`},
	}
	for _, c := range cases {
		if got := string(stripJSONComments([]byte(c.in))); got != c.want {
			t.Errorf("%q:\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

func TestConfigValues(t *testing.T) {
	env := fakeEnv(map[string]string{"KEY": "v", "lower_key": "lv", "A": "1", "B": "2"})
	cases := []struct {
		in, want string
		ok       bool
	}{
		{"sk-literal", "sk-literal", true},
		{"KEY", "v", true}, // pi's legacy bare name
		{"UNSET_KEY", "UNSET_KEY", true},
		{"$KEY", "v", true},
		{"${KEY}", "v", true},
		{"Bearer ${KEY}!", "Bearer v!", true},
		{"$A$B", "12", true},
		{"$UNSET", "", false},
		{"x-$UNSET-y", "", false},
		{"$lower_key", "lv", true},
		{"lower_key", "lower_key", true},
		{"$$KEY", "$KEY", true},
		{"$!x", "!x", true},
		{"a$", "a$", true},
		{"$ not a name", "$ not a name", true},
		{"${KEY", "${KEY", true},
		{"${not-a-name}", "${not-a-name}", true},
	}
	r := &valueResolver{env: env}
	for _, c := range cases {
		got, ok, why := r.resolve(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("%q: got %q ok=%v (%s); want %q ok=%v", c.in, got, ok, why, c.want, c.ok)
		}
	}
	if _, ok, why := r.resolve("x-$UNSET-y"); ok || !strings.Contains(why, "UNSET") {
		t.Errorf("missing variable not named: %q", why)
	}
}

func TestCommandValues(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("uses sh")
	}
	dir := t.TempDir()
	count := filepath.Join(dir, "count")
	m, err := ParseModels([]byte(`{"providers":{"p":{"baseUrl":"http://x","api":"openai-completions","apiKey":"!echo run >> `+count+`; printf ' sk-cmd \\n'",
		"headers":{"X-Token":"!printf tok","X-Bad":"!exit 3"},"models":[{"id":"m"},{"id":"n","headers":{"X-Bad":"fixed"}}]}}}`), testEnv)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Resolve("p/m"); err == nil || !strings.Contains(err.Error(), `header "X-Bad"`) || !strings.Contains(err.Error(), "exit 3") {
		t.Errorf("failing header command: %v", err)
	}
	r, err := m.Resolve("p/n")
	if err != nil || r.APIKey != "sk-cmd" || r.Headers["X-Token"] != "tok" {
		t.Fatalf("command values: %+v %v", r, err)
	}
	if _, err := m.Resolve("p/n"); err != nil {
		t.Fatal(err)
	}
	// Cached: the key command ran once for the two routes.
	if data, _ := os.ReadFile(count); strings.Count(string(data), "run") != 1 {
		t.Errorf("key command ran %d times", strings.Count(string(data), "run"))
	}
	m.values.noCommands = true
	m.values.commands = nil
	if _, err := m.Resolve("p/n"); err == nil || !strings.Contains(err.Error(), `header "X-Token": the command "printf tok"`) {
		t.Errorf("noCommands: %v", err)
	}
}
