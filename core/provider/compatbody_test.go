package provider

import (
	"encoding/json"
	"strings"
	"testing"
)

// thinkingRoute is a reasoning model on an OpenAI-compatible server whose
// compat sets the thinking format.
func thinkingRoute(t *testing.T, compat, model string, level string) Route {
	t.Helper()
	m, err := ParseModels([]byte(`{"providers":{"s":{"baseUrl":"http://s/v1","api":"openai-completions","compat":`+compat+`,"models":[`+model+`]}}}`), testEnv)
	if err != nil {
		t.Fatal(err)
	}
	var id struct{ ID string }
	_ = json.Unmarshal([]byte(model), &id)
	sel, err := m.Select(Selection{Model: "s/" + id.ID, Thinking: level})
	if err != nil {
		t.Fatal(err)
	}
	return sel.Route
}

func TestOpenAIThinkingFormats(t *testing.T) {
	reasoning := `{"id":"m","reasoning":true}`
	cases := []struct {
		name, compat, model, level string
		want, absent               []string
	}{
		{"openai", `{}`, reasoning, "high", []string{`"reasoning_effort":"high"`}, nil},
		{"openai off", `{}`, reasoning, "off", nil, []string{"reasoning_effort"}},
		{"openai off mapped", `{}`, `{"id":"m","reasoning":true,"thinkingLevelMap":{"off":"none"}}`, "off", []string{`"reasoning_effort":"none"`}, nil},
		{"openai mapped", `{}`, `{"id":"m","reasoning":true,"thinkingLevelMap":{"high":"max"}}`, "high", []string{`"reasoning_effort":"max"`}, nil},
		{"no effort support", `{"supportsReasoningEffort":false}`, reasoning, "high", nil, []string{"reasoning_effort"}},
		{"not reasoning", `{}`, `{"id":"m"}`, "high", nil, []string{"reasoning"}},
		{"openrouter", `{"thinkingFormat":"openrouter"}`, reasoning, "low", []string{`"reasoning":{"effort":"low"}`}, nil},
		{"openrouter off", `{"thinkingFormat":"openrouter"}`, reasoning, "off", []string{`"reasoning":{"effort":"none"}`}, nil},
		{"deepseek", `{"thinkingFormat":"deepseek"}`, reasoning, "medium", []string{`"thinking":{"type":"enabled"}`, `"reasoning_effort":"medium"`}, nil},
		{"deepseek off", `{"thinkingFormat":"deepseek"}`, reasoning, "off", []string{`"thinking":{"type":"disabled"}`}, []string{"reasoning_effort"}},
		{"zai", `{"thinkingFormat":"zai","supportsReasoningEffort":false}`, reasoning, "high", []string{`"thinking":{"type":"enabled","clear_thinking":false}`}, []string{"reasoning_effort"}},
		{"qwen", `{"thinkingFormat":"qwen"}`, reasoning, "off", []string{`"enable_thinking":false`}, nil},
		{"qwen-chat-template", `{"thinkingFormat":"qwen-chat-template"}`, reasoning, "low", []string{`"chat_template_kwargs":{"enable_thinking":true,"preserve_thinking":true}`}, nil},
		{"together", `{"thinkingFormat":"together","supportsReasoningEffort":true}`, reasoning, "low", []string{`"reasoning":{"enabled":true}`, `"reasoning_effort":"low"`}, nil},
		{"string-thinking", `{"thinkingFormat":"string-thinking"}`, reasoning, "high", []string{`"thinking":"high"`}, nil},
		{"budget field", `{"thinkingTokenBudgetField":"thinking_budget"}`, `{"id":"m","reasoning":true,"maxTokens":4096}`, "high", []string{`"thinking_budget":3072`}, nil},
		{"developer role", `{"supportsDeveloperRole":true}`, reasoning, "low", []string{`{"role":"developer","content":"S"}`}, []string{`"role":"system"`}},
		{"no usage in streaming", `{"supportsUsageInStreaming":false}`, `{"id":"m"}`, "", nil, []string{"stream_options"}},
		{"max_tokens field", `{"maxTokensField":"max_tokens"}`, `{"id":"m","maxTokens":100}`, "", []string{`"max_tokens":100`}, []string{"max_completion_tokens"}},
		{"store", `{"supportsStore":true}`, `{"id":"m"}`, "", []string{`"stream_options":{"include_usage":true},"store":false`}, nil},
		{"sampling wins", `{}`, `{"id":"m","samplingParams":{"max_completion_tokens":5,"top_p":0.5}}`, "", []string{`"max_completion_tokens":5`, `"top_p":0.5`}, []string{`16384`}},
	}
	if len(cases) == 0 {
		t.Fatal("no cases")
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := thinkingRoute(t, c.compat, c.model, c.level)
			body, err := DryRun(r, Request{Messages: []Message{{Role: RoleSystem, Content: "S"}, {Role: RoleUser, Content: "U"}}})
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range c.want {
				if !strings.Contains(string(body), w) {
					t.Errorf("body lacks %s\n%s", w, body)
				}
			}
			for _, a := range c.absent {
				if strings.Contains(string(body), a) {
					t.Errorf("body has %s\n%s", a, body)
				}
			}
		})
	}
	// A format pi does not implement is refused, naming the field.
	m, _ := ParseModels([]byte(`{"providers":{"s":{"baseUrl":"http://s/v1","api":"openai-completions","compat":{"thinkingFormat":"chat-template"},"models":[{"id":"m","reasoning":true}]}}}`), testEnv)
	if _, err := m.Select(Selection{Model: "s/m"}); err == nil || !strings.Contains(err.Error(), "compat.thinkingFormat") {
		t.Errorf("chat-template: %v", err)
	}
}

func TestAnthropicThinking(t *testing.T) {
	m, err := ParseModels([]byte(`{"providers":{"anthropic":{"models":[
		{"id":"budget","reasoning":true,"maxTokens":32000},
		{"id":"adaptive","reasoning":true,"compat":{"forceAdaptiveThinking":true},"thinkingLevelMap":{"xhigh":"xhigh"}},
		{"id":"plain"}]}}}`), testEnv)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		model, level string
		maxTokens    int
		want         []string
	}{
		{"budget", "medium", 0, []string{`"max_tokens":32000`, `"thinking":{"type":"enabled","budget_tokens":8192,"display":"summarized"}`}},
		{"budget", "low", 1000, []string{`"max_tokens":3048`, `"budget_tokens":2024`}},
		{"budget", "off", 0, []string{`"thinking":{"type":"disabled"}`}},
		{"adaptive", "xhigh", 0, []string{`"thinking":{"type":"adaptive","display":"summarized"}`, `"output_config":{"effort":"xhigh"}`}},
		{"adaptive", "minimal", 0, []string{`"output_config":{"effort":"low"}`}},
		{"plain", "high", 0, nil},
	}
	for _, c := range cases {
		sel, err := m.Select(Selection{Model: "anthropic/" + c.model, Thinking: c.level})
		if err != nil {
			t.Fatal(err)
		}
		body, err := DryRun(sel.Route, Request{Messages: []Message{{Role: RoleUser, Content: "U"}}, MaxTokens: c.maxTokens})
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range c.want {
			if !strings.Contains(string(body), w) {
				t.Errorf("%s:%s body lacks %s\n%s", c.model, c.level, w, body)
			}
		}
		info, _ := DescribeRequest(sel.Route)
		beta := info.Header.Get("Anthropic-Beta")
		if wantBeta := c.model == "budget" && c.level != "off"; (beta == "interleaved-thinking-2025-05-14") != wantBeta {
			t.Errorf("%s:%s anthropic-beta %q", c.model, c.level, beta)
		}
		if c.want == nil && strings.Contains(string(body), "thinking") {
			t.Errorf("%s: thinking on a model without reasoning\n%s", c.model, body)
		}
	}
}

func TestJSNumber(t *testing.T) {
	for in, want := range map[string]string{"1.0": "1", "0.95": "0.95", "20": "20", "-0.50": "-0.5", "1e2": "100", `"1.0"`: `"1.0"`, "true": "true", "1e-9": "1e-9", "[1.0]": "[1.0]"} {
		if got := string(jsNumber(json.RawMessage(in))); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
}
