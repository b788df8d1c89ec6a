package provider

import (
	"bytes"
	"strings"
	"testing"
)

// benchConversation is 20 messages after an 8 KiB system prompt.
func benchConversation() Request {
	sys := strings.Repeat("<rules>\n- keep answers short & exact\n</rules>\n", 8192/46+1)[:8192]
	msgs := []Message{{Role: RoleSystem, Content: sys}}
	for i := range 20 {
		role := RoleUser
		if i%2 == 1 {
			role = RoleAssistant
		}
		msgs = append(msgs, Message{Role: role, Content: strings.Repeat("some words of a turn, ", 10)})
	}
	return Request{Messages: msgs, MaxTokens: 1024, Stream: true}
}

func BenchmarkBuildOpenAIBody(b *testing.B) {
	req, route := benchConversation(), testRoute(APIOpenAICompletions)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := buildOpenAIBody(route, req); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBuildAnthropicBody(b *testing.B) {
	req, route := benchConversation(), testRoute(APIAnthropicMessages)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := BuildAnthropicBody(route, req); err != nil {
			b.Fatal(err)
		}
	}
}

// longToolReply is a long streamed reply: 16 KiB of text and ten calls
// with 2 KiB of arguments each, all in 8-byte fragments, the way models
// stream them.
func longToolReply() scriptReply {
	r := scriptReply{text: strings.Repeat("Reading the code, then editing it. ", 16384/35), stop: StopReasonToolUse, usage: Usage{InputTokens: 9000, OutputTokens: 7000}}
	for i := range 10 {
		args := `{"path":"src/file` + strings.Repeat("x", i) + `.go","content":"` + strings.Repeat(`line with \"quotes\" and \\ slashes\n`, 2048/38) + `"}`
		r.calls = append(r.calls, scriptCall{id: "call_" + strings.Repeat("0", i), name: "write", args: args})
	}
	return r
}

func benchmarkDecode(b *testing.B, api string) {
	body := []byte(scriptFor(api, longToolReply(), 8))
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	events := 0
	for b.Loop() {
		resp, err := decode(api, bytes.NewReader(body), func(StreamEvent) { events++ })
		if err != nil || len(resp.ToolCalls) != 10 {
			b.Fatalf("%v, %d calls", err, len(resp.ToolCalls))
		}
	}
	b.ReportMetric(float64(events)/float64(b.N), "events/op")
}

func BenchmarkDecodeToolStreamOpenAI(b *testing.B)    { benchmarkDecode(b, APIOpenAICompletions) }
func BenchmarkDecodeToolStreamAnthropic(b *testing.B) { benchmarkDecode(b, APIAnthropicMessages) }

func BenchmarkBuildToolBodies(b *testing.B) {
	req := toolConversation()
	for _, api := range []string{APIOpenAICompletions, APIAnthropicMessages} {
		b.Run(api, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := DryRun(testRoute(api), req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
