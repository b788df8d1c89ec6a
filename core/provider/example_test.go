package provider_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/piwasm/pi/core/provider"
)

// A system message in the middle of the history is folded into Anthropic's
// top-level system text, and the two user turns it separated are merged.
func ExampleBuildAnthropicBody() {
	route := provider.Route{Provider: "anthropic", ModelID: "claude-x", API: provider.APIAnthropicMessages}
	body, err := provider.BuildAnthropicBody(route, provider.Request{MaxTokens: 256, Messages: []provider.Message{
		{Role: "system", Content: "You are pi."},
		{Role: "user", Content: "hi"},
		{Role: "system", Content: "cwd is /src"},
		{Role: "user", Content: "list files"},
	}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(body))
	// Output:
	// {"model":"claude-x","max_tokens":256,"system":[{"type":"text","text":"You are pi.\n\ncwd is /src","cache_control":{"type":"ephemeral"}}],"messages":[{"role":"user","content":[{"type":"text","text":"hi\n\nlist files","cache_control":{"type":"ephemeral"}}]}]}
}

// What a --dry-run printer shows: the envelope with secrets redacted, then
// the exact body.
func ExampleDescribeRequest() {
	models, _ := provider.ParseModels(nil, func(string) string { return "sk-very-secret" })
	route, err := models.Resolve("openai/gpt-x")
	if err != nil {
		fmt.Println(err)
		return
	}
	info, _ := provider.DescribeRequest(route)
	body, _ := provider.DryRun(route, provider.Request{Messages: []provider.Message{{Role: "user", Content: "hi"}}})
	fmt.Println(info.Method, info.URL)
	fmt.Println("Authorization:", info.Header.Get("Authorization"))
	fmt.Println(string(body))
	// Output:
	// POST https://api.openai.com/v1/responses
	// Authorization: Bearer [redacted]
	// {"model":"gpt-x","input":[{"role":"user","content":[{"type":"input_text","text":"hi"}]}],"stream":true,"store":false,"max_output_tokens":16384}
}

func ExampleClient_Stream() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"choices\":[{\"delta\":{\"content\":\"Hel\"}}]}\n\n"+
			"data: {\"choices\":[{\"delta\":{\"content\":\"lo\"},\"finish_reason\":\"stop\"}]}\n\n"+
			"data: [DONE]\n\n")
	}))
	defer srv.Close()

	route := provider.Route{Provider: "local", ModelID: "m", BaseURL: srv.URL + "/v1", API: provider.APIOpenAICompletions}
	client := &provider.Client{HTTP: srv.Client()}
	resp, err := client.Stream(context.Background(), route, provider.Request{
		Messages: []provider.Message{{Role: "user", Content: "hi"}},
	}, func(text string) { fmt.Printf("delta %q\n", text) })
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s (%s)\n", resp.Text, resp.StopReason)
	// Output:
	// delta "Hel"
	// delta "lo"
	// Hello (stop)
}

// A reply that calls a tool, streamed in fragments: the events name the
// call as it starts, carry its argument JSON piece by piece, and hand over
// the finished call at the end.
func ExampleClient_StreamEvents() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, `data: {"choices":[{"delta":{"tool_calls":[{"index":0,"id":"call_1","function":{"name":"read","arguments":"{\"pa"}}]}}]}`+"\n\n"+
			`data: {"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"th\":\"a.go\"}"}}]},"finish_reason":"tool_calls"}]}`+"\n\n"+
			"data: [DONE]\n\n")
	}))
	defer srv.Close()

	route := provider.Route{Provider: "local", ModelID: "m", BaseURL: srv.URL + "/v1", API: provider.APIOpenAICompletions}
	client := &provider.Client{HTTP: srv.Client()}
	req := provider.Request{
		Messages: []provider.Message{{Role: provider.RoleUser, Content: "show a.go"}},
		Tools:    []provider.ToolSpec{{Name: "read", Description: "Read a file.", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}},
	}
	resp, err := client.StreamEvents(context.Background(), route, req, func(ev provider.StreamEvent) {
		switch ev.Type {
		case provider.EventToolCallStart:
			fmt.Printf("%s %d %s %s\n", ev.Type, ev.ContentIndex, ev.ID, ev.ToolName)
		case provider.EventToolCallDelta:
			fmt.Printf("%s %d %q\n", ev.Type, ev.ContentIndex, ev.Delta)
		case provider.EventToolCallEnd:
			fmt.Printf("%s %d %s\n", ev.Type, ev.ContentIndex, ev.ToolCall.Arguments)
		}
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.StopReason, resp.RawStopReason, len(resp.ToolCalls))
	// Output:
	// toolcall_start 0 call_1 read
	// toolcall_delta 0 "{\"pa"
	// toolcall_delta 0 "th\":\"a.go\"}"
	// toolcall_end 0 {"path":"a.go"}
	// toolUse tool_calls 1
}
