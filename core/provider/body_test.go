package provider

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file\n got: %s\nwant: %s", name, got, want)
	}
}

// conversation is a history with everything the builders must handle: a
// leading system prompt with tags and quotes, an in-history system update,
// an emptied system node, consecutive user turns and an empty assistant turn.
func conversation() []Message {
	return []Message{
		{Role: RoleSystem, Content: "You are pi.\n\n<rules>\n- be concise & \"exact\"\n</rules>"},
		{Role: RoleUser, Content: "List the files."},
		{Role: RoleAssistant, Content: "a.go\nb.go"},
		{Role: RoleSystem, Content: "section cwd updated:\n<cwd>\n/tmp/x\n</cwd>"},
		{Role: RoleSystem, Content: ""},
		{Role: RoleUser, Content: "Now read a.go."},
		{Role: RoleUser, Content: "Snapshot: unicode é ✓"},
		{Role: RoleAssistant, Content: ""},
	}
}

func testRoute(api string) Route {
	r := Route{Provider: "test", ModelID: "m-1", BaseURL: "http://127.0.0.1:1/v1", API: api, APIKey: "sk-secret"}
	r.SystemInHistory = api == APIOpenAICompletions
	return r
}

func TestOpenAIBodyGolden(t *testing.T) {
	body, err := buildOpenAIBody(testRoute(APIOpenAICompletions), Request{Messages: conversation(), MaxTokens: 512, Stream: true})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "openai_body.json", body)
	if !json.Valid(body) {
		t.Fatal("body is not valid JSON")
	}
}

func TestAnthropicBodyGolden(t *testing.T) {
	body, err := BuildAnthropicBody(testRoute(APIAnthropicMessages), Request{Messages: conversation(), MaxTokens: 512, Stream: true})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "anthropic_body.json", body)
	if !json.Valid(body) {
		t.Fatal("body is not valid JSON")
	}
}

func TestOpenAIBodyShape(t *testing.T) {
	r := testRoute(APIOpenAICompletions)
	msgs := []Message{{Role: RoleSystem, Content: "<s>"}, {Role: RoleUser, Content: "hi"}}
	cases := []struct {
		name  string
		route Route
		req   Request
		want  string
	}{
		{"plain: the default cap is sent", r, Request{Messages: msgs},
			`{"model":"m-1","messages":[{"role":"system","content":"<s>"},{"role":"user","content":"hi"}],"max_completion_tokens":16384}`},
		{"stream and cap", r, Request{Messages: msgs, Stream: true, MaxTokens: 9},
			`{"model":"m-1","messages":[{"role":"system","content":"<s>"},{"role":"user","content":"hi"}],"stream":true,"stream_options":{"include_usage":true},"max_completion_tokens":9}`},
		{"legacy cap field and model override", Route{ModelID: "m-1", API: APIOpenAICompletions, MaxTokensField: "max_tokens"}, Request{Model: "m-2", Messages: msgs[1:], MaxTokens: 9},
			`{"model":"m-2","messages":[{"role":"user","content":"hi"}],"max_tokens":9}`},
		{"route cap is sent", Route{ModelID: "m-1", API: APIOpenAICompletions, MaxTokens: 100}, Request{Messages: msgs[1:]},
			`{"model":"m-1","messages":[{"role":"user","content":"hi"}],"max_completion_tokens":100}`},
		{"cap fitted into the context window", Route{ModelID: "m-1", API: APIOpenAICompletions, MaxTokens: 32000, ContextWindow: 8192}, Request{Messages: msgs[1:]},
			`{"model":"m-1","messages":[{"role":"user","content":"hi"}],"max_completion_tokens":4095}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := buildOpenAIBody(c.route, c.req)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Errorf("\n got: %s\nwant: %s", got, c.want)
			}
		})
	}
}

func TestAnthropicBodyShape(t *testing.T) {
	r := testRoute(APIAnthropicMessages)
	cases := []struct {
		name  string
		route Route
		req   Request
		want  string
	}{
		{"no system, default cap", r, Request{Messages: []Message{{Role: RoleUser, Content: "hi"}}},
			`{"model":"m-1","max_tokens":16384,"messages":[{"role":"user","content":[{"type":"text","text":"hi","cache_control":{"type":"ephemeral"}}]}]}`},
		{"route cap", Route{ModelID: "m", API: APIAnthropicMessages, MaxTokens: 64000}, Request{Messages: []Message{{Role: RoleUser, Content: "hi"}}, Stream: true},
			`{"model":"m","max_tokens":64000,"messages":[{"role":"user","content":[{"type":"text","text":"hi","cache_control":{"type":"ephemeral"}}]}],"stream":true}`},
		{"late system merged in order", r, Request{MaxTokens: 5, Messages: []Message{
			{Role: RoleUser, Content: "a"}, {Role: RoleSystem, Content: "S1"}, {Role: RoleAssistant, Content: "b"},
			{Role: RoleSystem, Content: "S2"}, {Role: RoleAssistant, Content: "c"}, {Role: RoleUser, Content: "d"}}},
			`{"model":"m-1","max_tokens":5,"system":[{"type":"text","text":"S1\n\nS2","cache_control":{"type":"ephemeral"}}],"messages":[{"role":"user","content":"a"},{"role":"assistant","content":[{"type":"text","text":"b"},{"type":"text","text":"c"}]},{"role":"user","content":[{"type":"text","text":"d","cache_control":{"type":"ephemeral"}}]}]}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := BuildAnthropicBody(c.route, c.req)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Errorf("\n got: %s\nwant: %s", got, c.want)
			}
		})
	}
}

func TestBodyErrors(t *testing.T) {
	oa, an := testRoute(APIOpenAICompletions), testRoute(APIAnthropicMessages)
	cases := []struct {
		name  string
		build func(Route, Request) ([]byte, error)
		route Route
		req   Request
		want  string
	}{
		{"openai empty", buildOpenAIBody, oa, Request{}, "no messages"},
		{"openai role", buildOpenAIBody, oa, Request{Messages: []Message{{Role: "function", Content: "x"}}}, `unknown role "function"`},
		{"openai model", buildOpenAIBody, Route{API: APIOpenAICompletions}, Request{Messages: []Message{{Role: RoleUser, Content: "x"}}}, "no model id"},
		{"openai cap field", buildOpenAIBody, Route{ModelID: "m", MaxTokensField: "n"}, Request{Messages: []Message{{Role: RoleUser, Content: "x"}}, MaxTokens: 1}, "maxTokensField"},
		{"anthropic only system", BuildAnthropicBody, an, Request{Messages: []Message{{Role: RoleSystem, Content: "x"}, {Role: RoleUser}}}, "no non-empty user or assistant"},
		{"anthropic role", BuildAnthropicBody, an, Request{Messages: []Message{{Role: "developer", Content: "x"}}}, "unknown role"},
		{"dry run api", DryRun, Route{ModelID: "m", API: "google"}, Request{Messages: []Message{{Role: RoleUser, Content: "x"}}}, `unsupported api "google"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := c.build(c.route, c.req)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

func TestBodiesAreDeterministic(t *testing.T) {
	req := Request{Messages: conversation(), Stream: true}
	for _, api := range []string{APIOpenAICompletions, APIAnthropicMessages} {
		a, err := DryRun(testRoute(api), req)
		if err != nil {
			t.Fatal(err)
		}
		for range 5 {
			b, _ := DryRun(testRoute(api), req)
			if !bytes.Equal(a, b) {
				t.Fatalf("%s: bodies differ between runs", api)
			}
		}
	}
}

func TestAcceptsSystemInHistory(t *testing.T) {
	cases := []struct {
		r    Route
		want bool
	}{
		{Route{API: APIOpenAICompletions, SystemInHistory: true}, true},
		{Route{API: APIOpenAICompletions}, false},
		{Route{API: APIAnthropicMessages, SystemInHistory: true}, false},
		{Route{API: APIAnthropicMessages}, false},
	}
	for _, c := range cases {
		if got := c.r.AcceptsSystemInHistory(); got != c.want {
			t.Errorf("%+v: got %v", c.r, got)
		}
	}
}
