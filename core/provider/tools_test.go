package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

// toolReply makes three calls (one without arguments), after thinking and
// text, with arguments full of characters a fragment may cut: escapes,
// multi-byte UTF-8, a newline escape.
var toolReply = scriptReply{
	thinking:  "The test fails; read the file, then run it.",
	signature: "sig-Zm9v",
	text:      "I'll read a.go and run the tests.",
	calls: []scriptCall{
		{"call_1", "read", `{"path": "a.go", "offset": 10}`},
		{"call_2", "bash", `{"command":"echo \"héllo ✓\" && go test ./...\n","timeout":30}`},
		{"call_3", "ls", ``},
	},
	stop:  StopReasonToolUse,
	usage: Usage{InputTokens: 120, OutputTokens: 45, CacheReadTokens: 1000, ReasoningTokens: 12, ReasoningReported: true, Reported: true},
}

var wantToolCalls = []ToolCall{
	{ID: "call_1", Name: "read", Arguments: json.RawMessage(`{"path":"a.go","offset":10}`)},
	{ID: "call_2", Name: "bash", Arguments: json.RawMessage(`{"command":"echo \"héllo ✓\" && go test ./...\n","timeout":30}`)},
	{ID: "call_3", Name: "ls", Arguments: json.RawMessage(`{}`)},
}

func scriptFor(api string, r scriptReply, frag int) string {
	if api == APIAnthropicMessages {
		return anthropicScript(r, frag)
	}
	return openAIScript(r, frag)
}

func routeFor(api, base string) Route {
	if api == APIAnthropicMessages {
		return anthropicRoute(base)
	}
	return openAIRoute(base)
}

func TestStreamToolCalls(t *testing.T) {
	for _, api := range []string{APIOpenAICompletions, APIAnthropicMessages} {
		for _, frag := range []int{1, 3, 7, 1 << 20} {
			t.Run(fmt.Sprintf("%s/frag%d", api, frag), func(t *testing.T) {
				srv, _ := fakeServer(t, sse(splitEvery(scriptFor(api, toolReply, frag), 11)...))
				var evs []StreamEvent
				resp, err := testClient(srv).StreamEvents(context.Background(), routeFor(api, srv.URL), hello, func(ev StreamEvent) { evs = append(evs, ev) })
				if err != nil {
					t.Fatal(err)
				}
				// The response's id, and the model that answered when it
				// is not the one asked for (the scripted OpenAI server
				// names a dated one).
				wantSig, wantRaw, wantID, wantModel := "reasoning_content", "tool_calls", "c1", "gpt-x-2026"
				wantUsage := toolReply.usage
				if api == APIAnthropicMessages {
					wantSig, wantRaw, wantID, wantModel = toolReply.signature, "tool_use", "msg_1", ""
					wantUsage.CacheWrite1hReported = true // counted apart by Anthropic alone
				}
				want := Response{Text: toolReply.text, Thinking: toolReply.thinking, ThinkingSignature: wantSig, ToolCalls: wantToolCalls,
					StopReason: StopReasonToolUse, RawStopReason: wantRaw, Usage: wantUsage, ResponseID: wantID, ResponseModel: wantModel}
				if !reflect.DeepEqual(resp, want) {
					t.Errorf("response\n got %+v\nwant %+v", resp, want)
				}
				checkEvents(t, evs, resp)
				for _, ev := range evs {
					if ev.Type == EventToolCallStart && (ev.ID == "" || ev.ToolName == "") {
						t.Fatalf("toolcall_start without id or name: %+v", ev)
					}
				}
			})
		}
	}
}

// checkEvents asserts the structure of an event stream: blocks numbered in
// the order they start, each opened once before its deltas and closed once
// after them, deltas adding up to the block, calls ending as the reply has
// them.
func checkEvents(t *testing.T, evs []StreamEvent, resp Response) {
	t.Helper()
	type state struct {
		kind           string
		buf            strings.Builder
		ended          bool
		id, name, text string
	}
	var blocks []*state
	var calls []ToolCall
	var text, thinking strings.Builder
	for n, ev := range evs {
		kind, phase, _ := strings.Cut(ev.Type, "_")
		if phase == "start" {
			if ev.ContentIndex != len(blocks) {
				t.Fatalf("event %d: %s opens block %d, want %d", n, ev.Type, ev.ContentIndex, len(blocks))
			}
			blocks = append(blocks, &state{kind: kind, id: ev.ID, name: ev.ToolName})
			continue
		}
		if ev.ContentIndex >= len(blocks) {
			t.Fatalf("event %d: %s for unopened block %d", n, ev.Type, ev.ContentIndex)
		}
		b := blocks[ev.ContentIndex]
		if b.kind != kind || b.ended {
			t.Fatalf("event %d: %s on a %s block (ended %v)", n, ev.Type, b.kind, b.ended)
		}
		switch phase {
		case "delta":
			b.buf.WriteString(ev.Delta)
		case "end":
			b.ended = true
			switch kind {
			case "text":
				if ev.Content != b.buf.String() {
					t.Fatalf("text_end content %q, deltas %q", ev.Content, b.buf.String())
				}
				text.WriteString(ev.Content)
			case "thinking":
				if ev.Content != b.buf.String() {
					t.Fatalf("thinking_end content %q, deltas %q", ev.Content, b.buf.String())
				}
				thinking.WriteString(ev.Content)
			case "toolcall":
				if ev.ToolCall == nil || ev.ToolCall.ID != b.id || ev.ToolCall.Name != b.name {
					t.Fatalf("toolcall_end %+v for call %s %s", ev.ToolCall, b.id, b.name)
				}
				if b.buf.Len() > 0 {
					if want, _ := finishArguments(b.buf.String(), nil); !sameJSON(ev.ToolCall.Arguments, want) {
						t.Fatalf("toolcall_end arguments %s, deltas %q", ev.ToolCall.Arguments, b.buf.String())
					}
				}
				calls = append(calls, *ev.ToolCall)
			}
		default:
			t.Fatalf("event %d: unknown type %q", n, ev.Type)
		}
	}
	for i, b := range blocks {
		if !b.ended {
			t.Fatalf("block %d (%s) never ended", i, b.kind)
		}
	}
	if text.String() != resp.Text || thinking.String() != resp.Thinking || !reflect.DeepEqual(calls, resp.ToolCalls) {
		t.Fatalf("events add up to text %q thinking %q calls %+v; response %+v", text.String(), thinking.String(), calls, resp)
	}
}

// TestStreamEventOrder pins the order of event types against golden files:
// OpenAI closes every block when the stream ends (as the established harness
// does), Anthropic closes each at its content_block_stop.
func TestStreamEventOrder(t *testing.T) {
	for _, api := range []string{APIOpenAICompletions, APIAnthropicMessages} {
		t.Run(api, func(t *testing.T) {
			srv, _ := fakeServer(t, sse(scriptFor(api, toolReply, 16)))
			var b bytes.Buffer
			resp, err := testClient(srv).StreamEvents(context.Background(), routeFor(api, srv.URL), hello, func(ev StreamEvent) {
				fmt.Fprintf(&b, "%s %d", ev.Type, ev.ContentIndex)
				if ev.ID != "" {
					fmt.Fprintf(&b, " id=%s name=%s", ev.ID, ev.ToolName)
				}
				if ev.Delta != "" {
					fmt.Fprintf(&b, " delta=%q", ev.Delta)
				}
				if ev.Content != "" {
					fmt.Fprintf(&b, " content=%q", ev.Content)
				}
				if ev.ToolCall != nil {
					fmt.Fprintf(&b, " call=%s", ev.ToolCall.Arguments)
				}
				b.WriteString("\n")
			})
			if err != nil {
				t.Fatal(err)
			}
			// What the stream said of the reply besides its content.
			u := resp.Usage
			fmt.Fprintf(&b, "reply id=%q model=%q stop=%q raw=%q reasoning=%d reasoningReported=%t cacheWrite1h=%d/%t reported=%t\n",
				resp.ResponseID, resp.ResponseModel, resp.StopReason, resp.RawStopReason, u.ReasoningTokens, u.ReasoningReported, u.CacheWrite1hTokens, u.CacheWrite1hReported, u.Reported)
			golden(t, "events_"+api+".txt", b.Bytes())
		})
	}
}

// TestToolArgumentProblems covers calls whose streamed arguments are not a
// JSON object: they end with "{}" and an ArgumentsError, never run as-is.
func TestToolArgumentProblems(t *testing.T) {
	cases := []struct {
		args, want, problem string
	}{
		{``, `{}`, ""},
		{"  \n", `{}`, ""},
		{`{"a":1}`, `{"a":1}`, ""},
		{"{\"text\":\"line1\nline2\"}", `{"text":"line1\u000aline2"}`, ""},
		{`{"a":`, `{}`, "not valid JSON"},
		{`[1,2]`, `{}`, "must be a JSON object"},
		{`"str"`, `{}`, "must be a JSON object"},
	}
	for _, api := range []string{APIOpenAICompletions, APIAnthropicMessages} {
		for _, c := range cases {
			r := scriptReply{calls: []scriptCall{{"c1", "t", c.args}}, stop: StopReasonToolUse}
			srv, _ := fakeServer(t, sse(scriptFor(api, r, 2)))
			resp, err := testClient(srv).StreamEvents(context.Background(), routeFor(api, srv.URL), hello, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(resp.ToolCalls) != 1 {
				t.Fatalf("%s %q: calls %+v", api, c.args, resp.ToolCalls)
			}
			tc := resp.ToolCalls[0]
			if string(tc.Arguments) != c.want || (c.problem == "") != (tc.ArgumentsError == "") || !strings.Contains(tc.ArgumentsError, c.problem) {
				t.Errorf("%s %q: arguments %s, problem %q; want %s, %q", api, c.args, tc.Arguments, tc.ArgumentsError, c.want, c.problem)
			}
		}
	}
}

func TestStopReasonMapping(t *testing.T) {
	cases := []struct {
		api, raw, want string
		problem        bool
	}{
		{APIOpenAICompletions, "stop", StopReasonStop, false},
		{APIOpenAICompletions, "end", StopReasonStop, false},
		{APIOpenAICompletions, "length", StopReasonLength, false},
		{APIOpenAICompletions, "tool_calls", StopReasonToolUse, false},
		{APIOpenAICompletions, "function_call", StopReasonToolUse, false},
		{APIOpenAICompletions, "content_filter", StopReasonError, true},
		{APIOpenAICompletions, "network_error", StopReasonError, true},
		{APIAnthropicMessages, "end_turn", StopReasonStop, false},
		{APIAnthropicMessages, "pause_turn", StopReasonStop, false},
		{APIAnthropicMessages, "stop_sequence", StopReasonStop, false},
		{APIAnthropicMessages, "max_tokens", StopReasonLength, false},
		{APIAnthropicMessages, "tool_use", StopReasonToolUse, false},
		{APIAnthropicMessages, "refusal", StopReasonError, true},
		{APIAnthropicMessages, "sensitive", StopReasonError, true},
	}
	for _, c := range cases {
		got, problem := mapStopReason(c.api, c.raw)
		if got != c.want || (problem != "") != c.problem {
			t.Errorf("%s %q: %q %q, want %q (problem %v)", c.api, c.raw, got, problem, c.want, c.problem)
		}
	}
}

// TestStreamStopReasonsEndToEnd checks the normalised reason a caller sees,
// including a provider stop that means failure (an error, text kept).
func TestStreamStopReasonsEndToEnd(t *testing.T) {
	cases := []struct {
		name, api, reply, want string
		fails                  bool
	}{
		{"openai length", APIOpenAICompletions, "data: {\"choices\":[{\"delta\":{\"content\":\"cut\"},\"finish_reason\":\"length\"}]}\n\ndata: [DONE]\n\n", StopReasonLength, false},
		{"openai done without finish, with a call", APIOpenAICompletions, "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c\",\"function\":{\"name\":\"ls\",\"arguments\":\"{}\"}}]}}]}\n\ndata: [DONE]\n\n", StopReasonToolUse, false},
		{"openai content filter", APIOpenAICompletions, "data: {\"choices\":[{\"delta\":{\"content\":\"cut\"},\"finish_reason\":\"content_filter\"}]}\n\ndata: [DONE]\n\n", StopReasonError, true},
		{"anthropic max tokens", APIAnthropicMessages, anthropicScript(scriptReply{text: "cut", stop: StopReasonLength}, 0), StopReasonLength, false},
		{"anthropic refusal", APIAnthropicMessages, strings.Replace(anthropicScript(scriptReply{text: "no", stop: StopReasonStop}, 0), "end_turn", "refusal", 1), StopReasonError, true},
		{"cut short", APIOpenAICompletions, "data: {\"choices\":[{\"delta\":{\"content\":\"par\"}}]}\n\n", StopReasonError, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv, _ := fakeServer(t, sse(c.reply))
			resp, err := testClient(srv).StreamEvents(context.Background(), routeFor(c.api, srv.URL), hello, nil)
			if (err != nil) != c.fails || resp.StopReason != c.want {
				t.Fatalf("stop %q err %v; want %q (fails %v)", resp.StopReason, err, c.want, c.fails)
			}
			if c.fails && resp.ErrorMessage == "" {
				t.Fatal("no ErrorMessage")
			}
		})
	}
}

func TestStreamAbortedStopReason(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	srv, _ := fakeServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"choices\":[{\"delta\":{\"content\":\"par\"}}]}\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	resp, err := testClient(srv).StreamEvents(ctx, openAIRoute(srv.URL), hello, func(ev StreamEvent) {
		if ev.Type == EventTextDelta {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) || resp.StopReason != StopReasonAborted || resp.Text != "par" {
		t.Fatalf("resp %+v err %v", resp, err)
	}
}
