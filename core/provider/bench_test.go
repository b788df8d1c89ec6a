package provider

import (
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
		if _, err := BuildOpenAIBody(route, req); err != nil {
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
