package compact

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/piwasm/pi/core/prompt"
	"github.com/piwasm/pi/core/provider"
	"github.com/piwasm/pi/core/session"
)

// benchBranch is a session of turns user prompts, each answered with a
// read call, its result and a reply (about 650 tokens a turn).
func benchBranch(turns int) []session.Entry {
	var out []session.Entry
	parent := ""
	add := func(m prompt.Message) {
		id := fmt.Sprintf("%08x", len(out)+1)
		out = append(out, session.Entry{Type: session.TypeMessage, ID: id, ParentID: parent, Message: &m})
		parent = id
	}
	no := false
	for i := 0; i < turns; i++ {
		add(prompt.Message{Role: "user", Content: prompt.Content{Blocks: []prompt.Block{{Type: "text", Text: fmt.Sprintf("%d: %s", i, strings.Repeat("look at the next file please ", 10))}}}})
		add(prompt.Message{Role: "assistant", Content: prompt.Content{Blocks: []prompt.Block{{Type: "toolCall", ID: "c", Name: "read", Arguments: json.RawMessage(fmt.Sprintf(`{"path":"src/file%d.go"}`, i))}}},
			Usage: &prompt.Usage{Input: 1000 + i*650, TotalTokens: 1000 + i*650}, StopReason: "toolUse"})
		add(prompt.Message{Role: prompt.RoleToolResult, ToolCallID: "c", ToolName: "read", IsError: &no, Content: prompt.Content{Blocks: []prompt.Block{{Type: "text", Text: strings.Repeat("package main // some code\n", 60)}}}})
		add(prompt.Message{Role: "assistant", Content: prompt.Content{Blocks: []prompt.Block{{Type: "text", Text: strings.Repeat("This file does a thing. ", 20)}}},
			Usage: &prompt.Usage{Input: 1500 + i*650, TotalTokens: 1500 + i*650}, StopReason: "stop"})
	}
	return out
}

// BenchmarkCompaction is a compaction's own cost, the model excluded (it
// answers at once): choosing the cut in a 200-turn branch (about 130,000
// tokens), serialising the summarised part, and encoding the stored entry.
func BenchmarkCompaction(b *testing.B) {
	branch := benchBranch(200)
	model := Model{Complete: func(context.Context, provider.Request) (provider.Response, error) {
		return provider.Response{Text: "## Goal\nsummary", StopReason: "stop"}, nil
	}}
	sys := prompt.Message{Role: "system", Content: prompt.TextContent("")}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p := Prepare(branch, 20000, false)
		if p == nil {
			b.Fatal("nothing to compact")
		}
		r, err := Summarize(context.Background(), p, model, "")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := json.Marshal(r.Entry(&sys)); err != nil {
			b.Fatal(err)
		}
	}
}
