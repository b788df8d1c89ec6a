package provider

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

const responsesReply = `event: response.created
data: {"type":"response.created","response":{"id":"r1","status":"in_progress"}}

data: {"type":"response.output_item.added","output_index":0,"item":{"type":"reasoning","id":"rs_1"}}

data: {"type":"response.reasoning_summary_text.delta","item_id":"rs_1","output_index":0,"delta":"Think"}

data: {"type":"response.output_item.done","output_index":0,"item":{"type":"reasoning","id":"rs_1","encrypted_content":"ENC","summary":[]}}

data: {"type":"response.output_item.added","output_index":1,"item":{"type":"message","id":"msg_1","role":"assistant"}}

data: {"type":"response.output_text.delta","item_id":"msg_1","output_index":1,"delta":"Hel"}

data: {"type":"response.output_text.delta","item_id":"msg_1","output_index":1,"delta":"lo"}

data: {"type":"response.output_item.done","output_index":1,"item":{"type":"message","id":"msg_1"}}

data: {"type":"response.output_item.added","output_index":2,"item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"read","arguments":""}}

data: {"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":2,"delta":"{\"path\":"}

data: {"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":2,"delta":"\"a.go\"}"}

data: {"type":"response.output_item.done","output_index":2,"item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"read","arguments":"{\"path\":\"a.go\"}"}}

data: {"type":"response.completed","response":{"id":"r1","status":"completed","usage":{"input_tokens":100,"output_tokens":20,"input_tokens_details":{"cached_tokens":40},"output_tokens_details":{"reasoning_tokens":9}}}}

`

func TestResponsesRoute(t *testing.T) {
	srv, last := fakeServer(t, sse(responsesReply))
	m, err := ParseModels([]byte(`{"providers":{"o":{"baseUrl":"`+srv.URL+`/v1","api":"openai-responses","apiKey":"sk-o",
		"models":[{"id":"gpt-r","reasoning":true,"samplingParams":{"temperature":0.5}}]}}}`), testEnv)
	if err != nil {
		t.Fatal(err)
	}
	sel, err := m.Select(Selection{Model: "gpt-r:low"})
	if err != nil {
		t.Fatal(err)
	}
	req := Request{Messages: []Message{{Role: RoleSystem, Content: "Be brief."}, {Role: RoleUser, Content: "Hi"}},
		Tools: []ToolSpec{{Name: "read", Description: "Read a file", Parameters: json.RawMessage(`{"type":"object"}`)}}}
	resp, err := testClient(srv).StreamEvents(context.Background(), sel.Route, req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "Hello" || resp.Thinking != "Think" || len(resp.ToolCalls) != 1 || resp.ToolCalls[0].ID != "call_1" ||
		string(resp.ToolCalls[0].Arguments) != `{"path":"a.go"}` || resp.StopReason != StopReasonToolUse {
		t.Fatalf("response %+v", resp)
	}
	if resp.Usage != (Usage{InputTokens: 60, OutputTokens: 20, CacheReadTokens: 40, ReasoningTokens: 9, ReasoningReported: true, Reported: true}) {
		t.Errorf("usage %+v", resp.Usage)
	}
	if resp.ResponseID != "r1" || resp.ResponseModel != "" || resp.RawStopReason != "completed" {
		t.Errorf("id %q, model %q, raw stop reason %q", resp.ResponseID, resp.ResponseModel, resp.RawStopReason)
	}
	got := last()
	if got.path != "/v1/responses" || got.header.Get("Authorization") != "Bearer sk-o" {
		t.Errorf("request %s %v", got.path, got.header)
	}
	want := `{"model":"gpt-r","input":[{"role":"developer","content":"Be brief."},{"role":"user","content":[{"type":"input_text","text":"Hi"}]}],"stream":true,"store":false,"max_output_tokens":16384,` +
		`"tools":[{"type":"function","name":"read","description":"Read a file","parameters":{"type":"object"},"strict":false}],"reasoning":{"effort":"low","summary":"auto"},"include":["reasoning.encrypted_content"],"temperature":0.5}`
	if string(got.body) != want {
		t.Errorf("body\n got %s\nwant %s", got.body, want)
	}
	// The reasoning item comes back whole on the next turn.
	next := Request{Messages: []Message{{Role: RoleUser, Content: "Hi"},
		{Role: RoleAssistant, Content: resp.Text, Thinking: resp.Thinking, ThinkingSignature: resp.ThinkingSignature, ToolCalls: resp.ToolCalls},
		{Role: RoleTool, ToolCallID: "call_1", ToolName: "read", Content: "package a"}}}
	body, err := DryRun(sel.Route, next)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{`{"type":"reasoning","id":"rs_1","encrypted_content":"ENC","summary":[]}`,
		`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Hello","annotations":[]}],"status":"completed","id":"msg_pi_0"}`,
		`{"type":"function_call","call_id":"call_1","name":"read","arguments":"{\"path\":\"a.go\"}"}`,
		`{"type":"function_call_output","call_id":"call_1","output":"package a"}`} {
		if !strings.Contains(string(body), w) {
			t.Errorf("replay lacks %s\n%s", w, body)
		}
	}
}

func TestResponsesStreamErrors(t *testing.T) {
	cases := []struct{ stream, want string }{
		{"data: {\"type\":\"response.output_text.delta\",\"output_index\":0,\"delta\":\"x\"}\n\n", "before response.completed"},
		{"data: {\"type\":\"response.failed\",\"response\":{\"error\":{\"message\":\"boom\"}}}\n\n", "boom"},
		{"data: {\"type\":\"error\",\"code\":\"bad\",\"message\":\"nope\"}\n\n", "nope"},
		{"data: {\"type\":\"response.incomplete\",\"response\":{\"status\":\"incomplete\",\"incomplete_details\":{\"reason\":\"content_filter\"}}}\n\n", "content_filter"},
	}
	for _, c := range cases {
		srv, _ := fakeServer(t, sse(c.stream))
		r := Route{Provider: "o", ModelID: "m", BaseURL: srv.URL, API: APIOpenAIResponses}
		_, err := testClient(srv).StreamEvents(context.Background(), r, hello, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v", c.stream, err)
		}
	}
	srv, _ := fakeServer(t, sse("data: {\"type\":\"response.incomplete\",\"response\":{\"status\":\"incomplete\",\"incomplete_details\":{\"reason\":\"max_output_tokens\"}}}\n\n"))
	resp, err := testClient(srv).StreamEvents(context.Background(), Route{Provider: "o", ModelID: "m", BaseURL: srv.URL, API: APIOpenAIResponses}, hello, nil)
	if err != nil || resp.StopReason != StopReasonLength || resp.RawStopReason != "incomplete.max_output_tokens" {
		t.Errorf("length: %+v %v", resp, err)
	}
}

const googleReply = `data: {"candidates":[{"content":{"role":"model","parts":[{"text":"Plan","thought":true,"thoughtSignature":"SIG"}]}}]}

data: {"candidates":[{"content":{"role":"model","parts":[{"text":"Hel"}]}}],"responseId":"g-1"}

data: {"candidates":[{"content":{"role":"model","parts":[{"text":"lo"},{"functionCall":{"name":"read","args":{"path":"a.go"}}}]},"finishReason":"STOP"}],"responseId":"g-1","usageMetadata":{"promptTokenCount":50,"candidatesTokenCount":7,"thoughtsTokenCount":3,"cachedContentTokenCount":10}}

`

func TestGoogleRoute(t *testing.T) {
	srv, last := fakeServer(t, sse(googleReply))
	m, err := ParseModels([]byte(`{"providers":{"google":{"baseUrl":"`+srv.URL+`/v1beta","apiKey":"g-key","models":[{"id":"gemini-2.5-flash","reasoning":true}]}}}`), testEnv)
	if err != nil {
		t.Fatal(err)
	}
	sel, err := m.Select(Selection{Model: "flash", Thinking: "medium"})
	if err != nil {
		t.Fatal(err)
	}
	req := Request{Messages: []Message{{Role: RoleSystem, Content: "Be brief."}, {Role: RoleUser, Content: "Hi"}},
		Tools: []ToolSpec{{Name: "read", Description: "Read", Parameters: json.RawMessage(`{"type":"object"}`)}}}
	resp, err := testClient(srv).StreamEvents(context.Background(), sel.Route, req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "Hello" || resp.Thinking != "Plan" || resp.ThinkingSignature != "SIG" || len(resp.ToolCalls) != 1 ||
		string(resp.ToolCalls[0].Arguments) != `{"path":"a.go"}` || resp.StopReason != StopReasonToolUse {
		t.Fatalf("response %+v", resp)
	}
	if resp.Usage != (Usage{InputTokens: 40, OutputTokens: 10, CacheReadTokens: 10, ReasoningTokens: 3, ReasoningReported: true, Reported: true}) {
		t.Errorf("usage %+v", resp.Usage)
	}
	if resp.ResponseID != "g-1" || resp.RawStopReason != "STOP" {
		t.Errorf("id %q, raw stop reason %q", resp.ResponseID, resp.RawStopReason)
	}
	got := last()
	if got.path != "/v1beta/models/gemini-2.5-flash:streamGenerateContent" || got.query != "alt=sse" || got.header.Get("X-Goog-Api-Key") != "g-key" || got.header.Get("Authorization") != "" {
		t.Errorf("request %s?%s %v", got.path, got.query, got.header)
	}
	want := `{"contents":[{"role":"user","parts":[{"text":"Hi"}]}],"systemInstruction":{"parts":[{"text":"Be brief."}],"role":"user"},` +
		`"generationConfig":{"maxOutputTokens":16384,"thinkingConfig":{"includeThoughts":true,"thinkingBudget":8192}},"tools":[{"functionDeclarations":[{"name":"read","description":"Read","parametersJsonSchema":{"type":"object"}}]}]}`
	if string(got.body) != want {
		t.Errorf("body\n got %s\nwant %s", got.body, want)
	}
	next := Request{Messages: []Message{{Role: RoleUser, Content: "Hi"},
		{Role: RoleAssistant, Content: resp.Text, Thinking: resp.Thinking, ThinkingSignature: resp.ThinkingSignature, ToolCalls: resp.ToolCalls},
		{Role: RoleTool, ToolCallID: resp.ToolCalls[0].ID, ToolName: "read", Content: "package a"},
		{Role: RoleTool, ToolCallID: "other", ToolName: "ls", Content: "boom", IsError: true}}}
	body, err := DryRun(sel.Route, next)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{`{"role":"model","parts":[{"thought":true,"text":"Plan","thoughtSignature":"SIG"},{"text":"Hello"},{"functionCall":{"name":"read","args":{"path":"a.go"}}}]}`,
		`{"role":"user","parts":[{"functionResponse":{"name":"read","response":{"output":"package a"}}},{"functionResponse":{"name":"ls","response":{"error":"boom"}}}]}`} {
		if !strings.Contains(string(body), w) {
			t.Errorf("replay lacks %s\n%s", w, body)
		}
	}
	// Gemini 3 and later take a discrete level; off is a zero budget.
	for model, want := range map[string]string{"gemini-3-pro-preview": `"thinkingConfig":{"includeThoughts":true,"thinkingLevel":"MEDIUM"}`, "gemini-4-argon:off": `"thinkingConfig":{"thinkingBudget":0}`} {
		r := sel.Route
		r.ModelID, r.Thinking = strings.TrimSuffix(model, ":off"), "medium"
		if strings.HasSuffix(model, ":off") {
			r.Thinking = ""
		}
		b, err := DryRun(r, hello)
		if err != nil || !strings.Contains(string(b), want) {
			t.Errorf("%s: %s %v", model, b, err)
		}
	}
}

func TestGoogleStreamErrors(t *testing.T) {
	cases := []struct{ stream, want string }{
		{"data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"x\"}]}}]}\n\n", "without a finishReason"},
		{"data: {\"candidates\":[{\"content\":{\"parts\":[]},\"finishReason\":\"SAFETY\"}]}\n\n", "SAFETY"},
		{"data: {\"error\":{\"code\":400,\"message\":\"bad key\"}}\n\n", "bad key"},
	}
	for _, c := range cases {
		srv, _ := fakeServer(t, sse(c.stream))
		r := Route{Provider: "google", ModelID: "gemini-x", BaseURL: srv.URL, API: APIGoogleGenerativeAI}
		_, err := testClient(srv).StreamEvents(context.Background(), r, hello, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v", c.stream, err)
		}
	}
}
