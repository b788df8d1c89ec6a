package provider

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

var (
	readSchema = json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"File to read"},"offset":{"type":"number"}},"required":["path"]}`)
	bashSchema = json.RawMessage(`{"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"], "additionalProperties": false, "anyOf": [{"required": ["command"]}]}`)
	tinyPNG    = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)

// toolConversation is a multi-turn history with every shape the builders
// must handle: a user image, thinking with and without a signature, parallel
// calls, a failed call, a result that is only an image, a failed call with
// an image, a call id the Anthropic API would reject, a dangling call closed
// by a later user turn, and a final user message.
func toolConversation() Request {
	return Request{
		MaxTokens: 4096,
		Stream:    true,
		Tools: []ToolSpec{
			{Name: "read", Description: "Read a file.", Parameters: readSchema},
			{Name: "bash", Description: "Run a command.", Parameters: bashSchema},
			{Name: "screenshot", Description: "Capture the screen."},
		},
		Messages: []Message{
			{Role: RoleSystem, Content: "You are pi."},
			{Role: RoleUser, Parts: []Part{{Type: PartText, Text: "Fix the failing test; the error is in the picture."}, {Type: PartImage, MimeType: "image/png", Data: tinyPNG}}},
			{Role: RoleAssistant, Content: "Reading the file and running the tests.", Thinking: "Look first.", ThinkingSignature: "sig-1",
				ToolCalls: []ToolCall{
					{ID: "call_a", Name: "read", Arguments: json.RawMessage(`{"path":"a.go"}`)},
					{ID: "call_b", Name: "bash", Arguments: json.RawMessage(`{"command":"go test ./..."}`)},
				}},
			{Role: RoleTool, ToolCallID: "call_a", ToolName: "read", Content: "package a\n\nfunc A() int { return 1 }\n"},
			{Role: RoleTool, ToolCallID: "call_b", ToolName: "bash", Content: "--- FAIL: TestA\nexit status 1", IsError: true},
			{Role: RoleAssistant, Thinking: "reasoning without a signature", ToolCalls: []ToolCall{{ID: "toolu|x/y+z", Name: "screenshot"}}},
			{Role: RoleTool, ToolCallID: "toolu|x/y+z", ToolName: "screenshot", Parts: []Part{{Type: PartImage, MimeType: "image/png", Data: tinyPNG}}},
			{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "call_c", Name: "bash", Arguments: json.RawMessage(`{"command":"open ui"}`)}}},
			{Role: RoleTool, ToolCallID: "call_c", ToolName: "bash", IsError: true, Parts: []Part{{Type: PartText, Text: "crashed"}, {Type: PartImage, MimeType: "image/jpeg", Data: "/9j/AA=="}}},
			{Role: RoleAssistant, Content: "Fixed.", ToolCalls: []ToolCall{{ID: "call_d", Name: "read", Arguments: json.RawMessage(`{"path":"b.go"}`)}}},
			{Role: RoleUser, Content: "Stop there; is it done?"},
		},
	}
}

// indentJSON makes golden bodies readable; the wire form is compact.
func indentJSON(t *testing.T, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		t.Fatalf("body is not valid JSON: %v\n%s", err, b)
	}
	out.WriteByte('\n')
	return out.Bytes()
}

func TestToolBodiesGolden(t *testing.T) {
	for _, api := range []string{APIOpenAICompletions, APIAnthropicMessages} {
		t.Run(api, func(t *testing.T) {
			body, err := DryRun(testRoute(api), toolConversation())
			if err != nil {
				t.Fatal(err)
			}
			golden(t, "tools_"+api+".json", indentJSON(t, body))
		})
	}
}

// TestToolBodyRules checks the rules the goldens show, so a regenerated
// golden that breaks one fails here too.
func TestToolBodyRules(t *testing.T) {
	req := toolConversation()
	oa, err := buildOpenAIBody(testRoute(APIOpenAICompletions), req)
	if err != nil {
		t.Fatal(err)
	}
	an, err := BuildAnthropicBody(testRoute(APIAnthropicMessages), req)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		body []byte
		want string
	}{
		{"openai tool declaration", oa, `"tools":[{"type":"function","function":{"name":"read","description":"Read a file.","parameters":` + string(readSchema) + `}}`},
		{"openai schema kept, compacted", oa, `"parameters":{"type":"object","properties":{"command":{"type":"string"}},"required":["command"],"additionalProperties":false,"anyOf":[{"required":["command"]}]}`},
		{"openai schema default", oa, `"parameters":{"type":"object","properties":{}}`},
		{"openai user image", oa, `{"type":"image_url","image_url":{"url":"data:image/png;base64,` + tinyPNG + `"}}`},
		{"openai assistant calls", oa, `"tool_calls":[{"id":"call_a","type":"function","function":{"name":"read","arguments":"{\"path\":\"a.go\"}"}}`},
		{"openai calls-only assistant has null content", oa, `{"role":"assistant","content":null,"tool_calls":[{"id":"toolu|x/y+z"`},
		{"openai empty arguments", oa, `"arguments":"{}"`},
		{"openai tool result", oa, `{"role":"tool","content":"package a\n\nfunc A() int { return 1 }\n","tool_call_id":"call_a"}`},
		{"openai image-only result", oa, `{"role":"tool","content":"(see attached image)","tool_call_id":"toolu|x/y+z"},{"role":"user","content":[{"type":"text","text":"Attached image(s) from tool result:"},{"type":"image_url"`},
		{"openai dangling call closed", oa, `{"role":"tool","content":"No result provided","tool_call_id":"call_d"},{"role":"user","content":"Stop there; is it done?"}`},
		{"anthropic tools with cache on the last", an, `{"name":"screenshot","description":"Capture the screen.","eager_input_streaming":true,"input_schema":{"type":"object","properties":{},"required":[]},"cache_control":{"type":"ephemeral"}}]`},
		{"anthropic schema reduced", an, `"input_schema":{"type":"object","properties":{"command":{"type":"string"}},"required":["command"],"additionalProperties":false}`},
		{"anthropic system cached", an, `"system":[{"type":"text","text":"You are pi.","cache_control":{"type":"ephemeral"}}]`},
		{"anthropic user image", an, `{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + tinyPNG + `"}}`},
		{"anthropic signed thinking", an, `{"type":"thinking","thinking":"Look first.","signature":"sig-1"},{"type":"text","text":"Reading the file and running the tests."},{"type":"tool_use","id":"call_a","name":"read","input":{"path":"a.go"}}`},
		{"anthropic unsigned thinking as text", an, `{"type":"text","text":"reasoning without a signature"},{"type":"tool_use","id":"toolu_x_y_z","name":"screenshot","input":{}}`},
		{"anthropic results grouped", an, `{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_a","content":"package a\n\nfunc A() int { return 1 }\n","is_error":false},{"type":"tool_result","tool_use_id":"call_b","content":"--- FAIL: TestA\nexit status 1","is_error":true}]}`},
		{"anthropic image result", an, `{"type":"tool_result","tool_use_id":"toolu_x_y_z","content":[{"type":"text","text":"(see attached image)"},{"type":"image"`},
		{"anthropic error images moved", an, `"content":"crashed\n(image attached after the tool results)","is_error":true},{"type":"text","text":"Images from the error result of tool call call_c (bash):"},{"type":"image","source":{"type":"base64","media_type":"image/jpeg","data":"/9j/AA=="}}]}`},
		{"anthropic dangling call closed and merged with the user turn, cached", an, `{"type":"tool_result","tool_use_id":"call_d","content":"No result provided","is_error":true},{"type":"text","text":"Stop there; is it done?","cache_control":{"type":"ephemeral"}}]}]`},
	} {
		if !strings.Contains(string(c.body), c.want) {
			t.Errorf("%s: body lacks %s\n%s", c.name, c.want, c.body)
		}
	}
	if strings.Count(string(an), "cache_control") != 3 {
		t.Errorf("anthropic body has %d cache breakpoints, want 3 (system, last tool, last user block)", strings.Count(string(an), "cache_control"))
	}
}

func TestToolBodyErrors(t *testing.T) {
	user := Message{Role: RoleUser, Content: "x"}
	cases := []struct {
		name string
		req  Request
		want string
	}{
		{"tool result without id", Request{Messages: []Message{user, {Role: RoleTool, Content: "r"}}}, "without a tool call id"},
		{"unknown part", Request{Messages: []Message{{Role: RoleUser, Parts: []Part{{Type: "audio"}}}}}, `unknown type "audio"`},
		{"image without mime", Request{Messages: []Message{{Role: RoleUser, Parts: []Part{{Type: PartImage, Data: "x"}}}}}, "without a mime type"},
		{"call without name", Request{Messages: []Message{user, {Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c"}}}}}, "has no name"},
		{"call with broken arguments", Request{Messages: []Message{user, {Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c", Name: "t", Arguments: json.RawMessage(`{`)}}}}}, "not valid JSON"},
		{"tool without name", Request{Messages: []Message{user}, Tools: []ToolSpec{{}}}, "tool 0 has no name"},
		{"tool twice", Request{Messages: []Message{user}, Tools: []ToolSpec{{Name: "a"}, {Name: "a"}}}, `"a" is declared twice`},
		{"tool schema broken", Request{Messages: []Message{user}, Tools: []ToolSpec{{Name: "a", Parameters: json.RawMessage(`{`)}}}, "not valid JSON"},
	}
	for _, api := range []string{APIOpenAICompletions, APIAnthropicMessages} {
		for _, c := range cases {
			_, err := DryRun(testRoute(api), c.req)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "test: ") {
				t.Errorf("%s %s: error %v, want one containing %q", api, c.name, err, c.want)
			}
		}
	}
	_, err := BuildAnthropicBody(testRoute(APIAnthropicMessages), Request{Messages: []Message{user}, Tools: []ToolSpec{{Name: "a", Parameters: json.RawMessage(`[1]`)}}})
	if err == nil || !strings.Contains(err.Error(), `tool "a": parameters must be a JSON object schema`) {
		t.Errorf("anthropic array schema: %v", err)
	}
}

func TestAnthropicVersionedBase(t *testing.T) {
	for base, want := range map[string]string{
		"https://api.anthropic.com":     "https://api.anthropic.com/v1/messages?beta=true",
		"https://api.anthropic.com/":    "https://api.anthropic.com/v1/messages?beta=true",
		"https://proxy.example/v1":      "https://proxy.example/v1/messages?beta=true",
		"https://proxy.example/x/v1/":   "https://proxy.example/x/v1/messages?beta=true",
		"https://proxy.example/api?k=1": "https://proxy.example/api/v1/messages?beta=true&k=1",
	} {
		got, err := Route{API: APIAnthropicMessages, BaseURL: base}.Endpoint()
		if err != nil || got != want {
			t.Errorf("%s: %s %v, want %s", base, got, err, want)
		}
	}
}

func TestCacheRetention(t *testing.T) {
	msgs := []Message{{Role: RoleSystem, Content: "S"}, {Role: RoleUser, Content: "hi"}}
	tools := []ToolSpec{{Name: "t"}}
	openai := Route{ModelID: "m", API: APIOpenAICompletions, BaseURL: "https://api.openai.com/v1"}
	local := Route{ModelID: "m", API: APIOpenAICompletions, BaseURL: "http://localhost:8080/v1"}
	an := Route{ModelID: "m", API: APIAnthropicMessages}
	long := strings.Repeat("é", 70)
	cases := []struct {
		name    string
		route   Route
		req     Request
		want    []string
		notWant []string
	}{
		{"anthropic short", an, Request{Messages: msgs, Tools: tools}, []string{`"text":"hi","cache_control":{"type":"ephemeral"}}`}, []string{"ttl"}},
		{"anthropic long", an, Request{Messages: msgs, Tools: tools, CacheRetention: CacheLong}, []string{`"cache_control":{"type":"ephemeral","ttl":"1h"}`}, nil},
		{"anthropic none", an, Request{Messages: msgs, Tools: tools, CacheRetention: CacheNone}, []string{`"messages":[{"role":"user","content":"hi"}]`}, []string{"cache_control"}},
		{"openai session key", openai, Request{Messages: msgs, SessionID: "sess-1"}, []string{`"prompt_cache_key":"sess-1"`}, []string{"prompt_cache_retention"}},
		{"openai key clamped to 64 characters", openai, Request{Messages: msgs, SessionID: long}, []string{`"prompt_cache_key":"` + strings.Repeat("é", 64) + `"`}, nil},
		{"openai long", openai, Request{Messages: msgs, SessionID: "s", CacheRetention: CacheLong}, []string{`"prompt_cache_key":"s","prompt_cache_retention":"24h"`}, nil},
		{"openai none", openai, Request{Messages: msgs, SessionID: "s", CacheRetention: CacheNone}, nil, []string{"prompt_cache"}},
		{"other server gets no key", local, Request{Messages: msgs, SessionID: "s"}, nil, []string{"prompt_cache_key"}},
	}
	for _, c := range cases {
		body, err := DryRun(c.route, c.req)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for _, w := range c.want {
			if !strings.Contains(string(body), w) {
				t.Errorf("%s: body lacks %s\n%s", c.name, w, body)
			}
		}
		for _, w := range c.notWant {
			if strings.Contains(string(body), w) {
				t.Errorf("%s: body has %s\n%s", c.name, w, body)
			}
		}
	}
	if _, err := DryRun(an, Request{Messages: msgs, CacheRetention: "forever"}); err == nil || !strings.Contains(err.Error(), `unknown cache retention "forever"`) {
		t.Errorf("bad retention: %v", err)
	}
}
