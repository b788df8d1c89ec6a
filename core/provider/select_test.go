package provider

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestListModelsMatchesPeer(t *testing.T) {
	dir := filepath.Join("testdata", "list-models")
	m, err := LoadModels(filepath.Join(dir, "models.json"), fakeEnv(map[string]string{"LAB_KEY": "k"}))
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "search-*.txt"))
	if len(files) == 0 {
		t.Fatal("no cases")
	}
	for _, f := range files {
		q := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "search-"), ".txt")
		q = strings.ReplaceAll(q, "_", "/")
		if q == "all" {
			q = ""
		}
		want, _ := os.ReadFile(f)
		if got := FormatModelList(m.ListModels(q)); got != string(want) {
			t.Errorf("search %q:\n got\n%s\nwant\n%s", q, got, want)
		}
	}
}

func TestFormatTokens(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1K", 1500: "1.5K", 16384: "16.4K", 128000: "128K", 1000000: "1M", 1048576: "1.0M", 2500000: "2.5M"} {
		if got := formatTokens(n); got != want {
			t.Errorf("%d: %q, want %q", n, got, want)
		}
	}
}

const selectModels = `{"providers":{
 "anthropic":{"models":[{"id":"claude-sonnet-4-5","reasoning":true},{"id":"claude-sonnet-4-5-20250929","reasoning":true},{"id":"claude-haiku-4-5"}]},
 "router":{"baseUrl":"http://r/v1","api":"openai-completions","apiKey":"$ROUTER","models":[{"id":"claude-sonnet-4-5"},{"id":"qwen/qwen3-coder","name":"Qwen Coder"}]},
 "local":{"baseUrl":"http://l/v1","api":"openai-completions","models":[{"id":"llama-3","reasoning":true,"thinkingLevelMap":{"low":null}}]}
}}`

func TestSelect(t *testing.T) {
	env := map[string]string{"ANTHROPIC_API_KEY": "a"}
	m, err := ParseModels([]byte(selectModels), fakeEnv(env))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		sel                    Selection
		provider, id, thinking string
		warning, err           string
	}{
		// The same id on two providers: the one with a key wins.
		{Selection{Model: "claude-sonnet-4-5"}, "anthropic", "claude-sonnet-4-5", "medium", "", ""},
		{Selection{Model: "router/claude-sonnet-4-5"}, "router", "claude-sonnet-4-5", "", "", ""},
		{Selection{Model: "Claude-Sonnet-4-5", Provider: "ROUTER"}, "router", "claude-sonnet-4-5", "", "", ""},
		// Fuzzy: aliases before dated ids, then the highest id.
		{Selection{Model: "sonnet"}, "anthropic", "claude-sonnet-4-5", "medium", "", ""},
		{Selection{Model: "haiku"}, "anthropic", "claude-haiku-4-5", "", "", ""},
		{Selection{Model: "coder"}, "router", "qwen/qwen3-coder", "", "", ""}, // by name too
		// Thinking suffix, --thinking over it, clamping.
		{Selection{Model: "sonnet:high"}, "anthropic", "claude-sonnet-4-5", "high", "", ""},
		{Selection{Model: "sonnet:high", Thinking: "minimal"}, "anthropic", "claude-sonnet-4-5", "minimal", "", ""},
		{Selection{Model: "llama-3:low"}, "local", "llama-3", "medium", "", ""}, // up first, as the other harness clamps
		{Selection{Model: "llama-3:max"}, "local", "llama-3", "high", "", ""},
		{Selection{Model: "llama-3:off"}, "local", "llama-3", "", "", ""},
		// Custom ids of known providers.
		{Selection{Model: "local/mistral"}, "local", "mistral", "medium", `model "mistral" is not listed for provider "local"`, ""},
		{Selection{Model: "openai/gpt-9:high"}, "openai", "gpt-9", "high", "", ""},
		{Selection{Model: "gpt-9", Provider: "openai"}, "openai", "gpt-9", "", "", ""},
		// Errors.
		{Selection{Model: "x", Provider: "nope"}, "", "", "", "", `unknown provider "nope"`},
		{Selection{Model: "x", Thinking: "huge"}, "", "", "", "", `--thinking "huge"`},
		{Selection{Model: "mystery"}, "", "", "", "", `model "mystery" not found`},
	}
	if len(cases) == 0 {
		t.Fatal("no cases")
	}
	for _, c := range cases {
		got, err := m.Select(c.sel)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%+v: error %v, want %q", c.sel, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%+v: %v", c.sel, err)
			continue
		}
		r := got.Route
		if r.Provider != c.provider || r.ModelID != c.id || r.Thinking != c.thinking || !strings.Contains(got.Warning, c.warning) || (c.warning == "") != (got.Warning == "") {
			t.Errorf("%+v: got %s/%s thinking %q warning %q; want %s/%s %q %q", c.sel, r.Provider, r.ModelID, r.Thinking, got.Warning, c.provider, c.id, c.thinking, c.warning)
		}
	}
	// With keys for both, the bare id is ambiguous; --api-key never picks.
	env["ROUTER"] = "r"
	if _, err := m.Select(Selection{Model: "claude-sonnet-4-5"}); err == nil || !strings.Contains(err.Error(), "anthropic/claude-sonnet-4-5, router/claude-sonnet-4-5") {
		t.Errorf("ambiguous: %v", err)
	}
	if _, err := m.Select(Selection{Model: "claude-sonnet-4-5", APIKey: "k"}); err == nil || !strings.Contains(err.Error(), "--api-key does not choose") {
		t.Errorf("ambiguous with --api-key: %v", err)
	}
	if s, err := m.Select(Selection{Model: "router/claude-sonnet-4-5", APIKey: "inline"}); err != nil || s.Route.APIKey != "inline" {
		t.Errorf("--api-key: %+v %v", s.Route, err)
	}
}

func TestScope(t *testing.T) {
	m, err := ParseModels([]byte(selectModels), fakeEnv(map[string]string{"ANTHROPIC_API_KEY": "a", "ROUTER": "r"}))
	if err != nil {
		t.Fatal(err)
	}
	got, warnings := m.Scope([]string{"anthropic/*:low", "coder", "llama-3:bogus", "*nothing*", "claude-sonnet-4-5", " "})
	want := []ScopedModel{
		{"anthropic", "claude-sonnet-4-5", "low"},
		{"anthropic", "claude-sonnet-4-5-20250929", "low"},
		{"anthropic", "claude-haiku-4-5", "low"},
		{"router", "qwen/qwen3-coder", ""},
		{"local", "llama-3", ""},
		{"router", "claude-sonnet-4-5", ""},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("scope\n got %+v\nwant %+v", got, want)
	}
	joined := strings.Join(warnings, "\n")
	for _, w := range []string{`invalid thinking level "bogus"`, `no models match pattern "*nothing*"`, `pattern "claude-sonnet-4-5": model "claude-sonnet-4-5" matches several providers`} {
		if !strings.Contains(joined, w) {
			t.Errorf("warnings %q lack %q", warnings, w)
		}
	}
}
