package provider

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
)

// memoized returns msgs, each with a Memo of its own.
func memoized(msgs []Message) []Message {
	out := append([]Message(nil), msgs...)
	for i := range out {
		out[i].Memo = &Memo{}
	}
	return out
}

// compatRoute is an OpenAI-compatible route with every compat rewrite on:
// developer role, store, thinking fields and sampling parameters.
func compatRoute() Route {
	r := testRoute(APIOpenAICompletions)
	r.Reasoning, r.Thinking = true, "high"
	c := detectCompat(Route{Provider: "openai", API: APIOpenAICompletions})
	r.Compat = &c
	r.SamplingParams = map[string]json.RawMessage{"temperature": json.RawMessage("0.5")}
	return r
}

// A message's memo changes nothing in the bytes, on the request that fills
// it or on the ones that read it.
func TestMemoKeepsBodiesIdentical(t *testing.T) {
	routes := map[string]Route{
		"openai":         testRoute(APIOpenAICompletions),
		"openai-compat":  compatRoute(),
		"anthropic":      testRoute(APIAnthropicMessages),
		"responses":      testRoute(APIOpenAIResponses),
		"google":         testRoute(APIGoogleGenerativeAI),
		"openai-reason":  func() Route { r := compatRoute(); r.Thinking = ""; return r }(),
		"anthropic-high": func() Route { r := testRoute(APIAnthropicMessages); r.Reasoning, r.Thinking = true, "high"; return r }(),
	}
	for name, route := range routes {
		for cname, req := range map[string]Request{"plain": {Messages: conversation(), MaxTokens: 512}, "tools": toolConversation()} {
			t.Run(name+"/"+cname, func(t *testing.T) {
				want, err := DryRun(route, req)
				if err != nil {
					t.Fatal(err)
				}
				mreq := req
				mreq.Messages = memoized(req.Messages)
				for pass := range 3 {
					got, err := DryRun(route, mreq)
					if err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(got, want) {
						t.Fatalf("pass %d: body with memos differs:\n got %s\nwant %s", pass, got, want)
					}
					// What the client sends: the body read piece by piece.
					o, err := buildBody(route, mreq)
					if err != nil {
						t.Fatal(err)
					}
					sent, err := io.ReadAll(iotest.OneByteReader(o.reader()))
					if err != nil || !bytes.Equal(sent, want) || o.size() != len(want) {
						t.Fatalf("pass %d: the body read through the reader (size %d) differs: %v\n got %s\nwant %s", pass, o.size(), err, sent, want)
					}
				}
			})
		}
	}
}

// longHistory is a session of n turns after an 8 KiB system prompt: each
// turn an assistant message with a read call and its result.
func longHistory(n int) []Message {
	sys := strings.Repeat("<rules>\n- keep answers short & exact\n</rules>\n", 8192/46+1)[:8192]
	msgs := []Message{{Role: RoleSystem, Content: sys}, {Role: RoleUser, Content: "Fix the first line of every file."}}
	for i := range n {
		id := fmt.Sprintf("call_%d", i)
		msgs = append(msgs,
			Message{Role: RoleAssistant, Content: fmt.Sprintf("Turn %d: reading f%d.txt.", i, i),
				ToolCalls: []ToolCall{{ID: id, Name: "read", Arguments: json.RawMessage(fmt.Sprintf(`{"path":"f%d.txt"}`, i))}}},
			Message{Role: RoleTool, ToolCallID: id, ToolName: "read", Content: strings.Repeat("line of the file\n", 20)})
	}
	return msgs
}

// allocated runs f and returns the bytes and objects it allocated.
func allocated(f func()) (bytes, objects uint64) {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc, b.Mallocs - a.Mallocs
}

// The body is written once in its final shape: once the history's messages
// carry memos, a request allocates the body itself, the list of the
// messages' encodings and a constant for the rest, whatever the length of
// the history. Encoding the history again, or decoding the body to patch it
// (as the compat fields once were added), would at least double the bytes.
func TestBodyWrittenOnce(t *testing.T) {
	windowed := compatRoute()
	windowed.ContextWindow = 1 << 20 // the output cap is fitted to it: every message counted
	for _, route := range []Route{testRoute(APIOpenAICompletions), compatRoute(), windowed} {
		for _, n := range []int{100, 1000} {
			req := Request{Messages: memoized(longHistory(n)), Tools: toolConversation().Tools}
			if _, err := DryRun(route, req); err != nil { // fills the memos
				t.Fatal(err)
			}
			var body []byte
			b, o := allocated(func() { body, _ = DryRun(route, req) })
			if limit := uint64(len(body) + 24*len(req.Messages) + 32<<10); b > limit {
				t.Errorf("%d turns: building a %d-byte body allocated %d bytes (limit %d): the history was encoded or decoded again", n, len(body), b, limit)
			}
			// About 20 objects; a few more when a collection emptied
			// encoding/json's pools. One per message would be thousands.
			if o > 100 {
				t.Errorf("%d turns: a request allocated %d objects: allocations grow with the history", n, o)
			}
		}
	}
}

func BenchmarkDryRunHistory(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("turns=%d", n), func(b *testing.B) {
			req := Request{Messages: memoized(longHistory(n)), Tools: toolConversation().Tools}
			route := compatRoute()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := DryRun(route, req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
