package provider_test

import (
	"context"
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
	// POST https://api.openai.com/v1/chat/completions
	// Authorization: Bearer [redacted]
	// {"model":"gpt-x","messages":[{"role":"user","content":"hi"}],"stream":true,"stream_options":{"include_usage":true},"max_completion_tokens":16384}
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
