package scripted

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/piwasm/pi/core/provider"
)

// A scripted reply reaches a client of each wire shape whole: its text and
// its calls with their arguments (pi's own decoders read them back).
func TestRepliesInEveryShape(t *testing.T) {
	rep := Reply{Text: "Reading the file.", Calls: []Call{{ID: "c1", Name: "read", Args: json.RawMessage(`{"path":"a.txt"}`)}}}
	for _, api := range []string{provider.APIOpenAICompletions, provider.APIOpenAIResponses, provider.APIAnthropicMessages} {
		t.Run(api, func(t *testing.T) {
			srv := httptest.NewServer(&Server{Replies: []Reply{rep}})
			defer srv.Close()
			route := provider.Route{Provider: "mock", ModelID: "m", API: api, BaseURL: srv.URL + "/v1", APIKey: "k"}
			resp, err := (&provider.Client{}).Stream(context.Background(), route, provider.Request{Messages: []provider.Message{{Role: provider.RoleUser, Content: "go"}}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Text != rep.Text || len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Name != "read" || string(resp.ToolCalls[0].Arguments) != `{"path":"a.txt"}` {
				t.Fatalf("got %+v", resp)
			}
		})
	}
}

// openAIByMarshal is how the chat completion stream was written before
// it was written by hand: json.Marshal of one map per chunk.
func openAIByMarshal(s *Server, rep Reply) string {
	var out strings.Builder
	send := func(v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(&out, "data: %s\n\n", b)
	}
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": "chatcmpl-scripted", "object": "chat.completion.chunk", "model": "scripted",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
	}
	send(chunk(map[string]any{"role": "assistant", "content": ""}, nil))
	for _, p := range s.pieces(rep.Thinking) {
		send(chunk(map[string]any{"reasoning_content": p}, nil))
	}
	for _, p := range s.pieces(rep.Text) {
		send(chunk(map[string]any{"content": p}, nil))
	}
	for i, c := range rep.Calls {
		send(chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": callID(c, i), "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": ""}}}}, nil))
		for _, p := range s.pieces(args(c)) {
			send(chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": p}}}}, nil))
		}
	}
	finish := "stop"
	if len(rep.Calls) > 0 {
		finish = "tool_calls"
	}
	if rep.Stop != "" {
		finish = rep.Stop
	}
	send(chunk(map[string]any{}, finish))
	send(map[string]any{"id": "chatcmpl-scripted", "object": "chat.completion.chunk", "model": "scripted", "choices": []any{},
		"usage": map[string]any{"prompt_tokens": rep.prompt(), "completion_tokens": 10, "total_tokens": rep.prompt() + 10}})
	out.WriteString("data: [DONE]\n\n")
	return out.String()
}

// The hand-written chat completion stream is byte for byte what
// json.Marshal of the chunk maps gives.
func TestOpenAIChunksAsMarshal(t *testing.T) {
	for _, rep := range []Reply{
		{Text: "Turn 5."},
		{Text: "a <b> & \"c\" \\ é \u2028", Thinking: "Let me think <here>.", Stop: "length", PromptTokens: 1234},
		{Calls: []Call{{ID: "e2", Name: "edit", Args: json.RawMessage(`{"path":"f01.txt","edits":[{"oldText":"line 1 of","newText":"LINE 1 of"}]}`)}, {Name: "read", RawArgs: `{"path":"<a&b>.txt"`}}},
		{Text: "Both.", Calls: []Call{{ID: "b5", Name: "bash", Args: json.RawMessage(`{"command":"grep -c LINE f*.txt | tail -n 1"}`)}}},
	} {
		for _, chunk := range []int{0, 1, 3} {
			s := &Server{Replies: []Reply{rep}, Chunk: chunk}
			rec := httptest.NewRecorder()
			s.ServeHTTP(rec, httptest.NewRequest("POST", "/v1/chat/completions", strings.NewReader(`{"messages":[{"role":"user","content":"go"}]}`)))
			if want := openAIByMarshal(s, rep); rec.Body.String() != want {
				t.Errorf("reply %+v, chunk %d:\n got %s\nwant %s", rep, chunk, rec.Body.String(), want)
			}
		}
	}
}

// hasAssistantDecoded is what hasAssistant answers: whether a message or
// input item of the request is the assistant's (or a function call).
func hasAssistantDecoded(body []byte) bool {
	type item struct {
		Role string `json:"role"`
		Type string `json:"type"`
	}
	var req struct {
		Messages []item `json:"messages"`
		Input    []item `json:"input"`
	}
	if json.Unmarshal(body, &req) != nil {
		return false
	}
	for _, m := range append(req.Messages, req.Input...) {
		if m.Role == "assistant" || m.Type == "function_call" {
			return true
		}
	}
	return false
}

func TestHasAssistant(t *testing.T) {
	for _, body := range []string{
		`{"model":"m","messages":[{"role":"system","content":"x"},{"role":"user","content":"go"}],"stream":true}`,
		`{"model":"m","messages":[{"role":"user","content":"go"},{"role":"assistant","content":"ok"},{"role":"user","content":"more"}]}`,
		`{"messages":[{"role":"user","content":[{"type":"text","text":"say \"role\":\"assistant\""}]}]}`,
		`{"input":[{"role":"user","content":"go"},{"type":"function_call","name":"read"}]}`,
		`{"input":"just text","messages":null}`,
		`{"messages":null,"input":[{"type":"message","role":"assistant"}]}`,
		`{"system":[{"type":"text","text":"s"}],"messages":[{"role":"user","content":"a"},{"role":"assistant","content":[{"type":"tool_use"}]}]}`,
		`{"messages":[{"role":"user"}],"tools":[{"type":"function","function":{"name":"assistant"}}]}`,
		`[1,2]`,
		``,
	} {
		if got, want := hasAssistant([]byte(body)), hasAssistantDecoded([]byte(body)); got != want {
			t.Errorf("hasAssistant(%s) = %v, want %v", body, got, want)
		}
	}
}
