package provider

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
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
//
// Every wire shape is held to the same rule: what a request allocates
// besides the body and the list is the same at 1,000 turns as at 100.
// Chat completions is also held to its constant (the other shapes still
// encode the system prompt and the tools on each request, through
// encoding/json: more objects, no more growth).
func TestBodyWrittenOnce(t *testing.T) {
	windowed := compatRoute()
	windowed.ContextWindow = 1 << 20 // the output cap is fitted to it: every message counted
	anthropicHigh := testRoute(APIAnthropicMessages)
	anthropicHigh.Reasoning, anthropicHigh.Thinking = true, "high"
	for _, route := range []Route{testRoute(APIOpenAICompletions), compatRoute(), windowed,
		testRoute(APIAnthropicMessages), anthropicHigh, testRoute(APIOpenAIResponses), testRoute(APIGoogleGenerativeAI)} {
		var rest, objects [2]uint64
		for k, n := range []int{100, 1000} {
			req := Request{Messages: memoized(longHistory(n)), Tools: toolConversation().Tools}
			if _, err := DryRun(route, req); err != nil { // fills the memos
				t.Fatal(err)
			}
			// The least of three runs: a collection in between empties
			// encoding/json's pools, which costs a request some more.
			var body []byte
			b, o := allocated(func() { body, _ = DryRun(route, req) })
			for range 2 {
				b2, o2 := allocated(func() { body, _ = DryRun(route, req) })
				b, o = min(b, b2), min(o, o2)
			}
			rest[k], objects[k] = b-min(b, uint64(len(body)+24*len(req.Messages))), o
			if route.API != APIOpenAICompletions {
				continue
			}
			if limit := uint64(len(body) + 24*len(req.Messages) + 32<<10); b > limit {
				t.Errorf("%s, %d turns: building a %d-byte body allocated %d bytes (limit %d): the history was encoded or decoded again", route.API, n, len(body), b, limit)
			}
			// About 20 objects; a few more when a collection emptied
			// encoding/json's pools. One per message would be thousands.
			if o > 100 {
				t.Errorf("%s, %d turns: a request allocated %d objects: allocations grow with the history", route.API, n, o)
			}
		}
		// Re-encoding the 900 turns in between would be over 500 KB and
		// thousands of objects.
		if rest[1] > rest[0]+16<<10 || objects[1] > objects[0]+30 || rest[0] > 96<<10 || objects[0] > 200 {
			t.Errorf("%s: besides the body and the list, a request allocated %d bytes in %d objects at 100 turns, %d bytes in %d objects at 1,000: it grows with the history",
				route.API, rest[0], objects[0], rest[1], objects[1])
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

// memoPool is one of each kind of message the body builders treat apart:
// merged, dropped, grouped with its neighbours, numbered.
func memoPool() []Message {
	call := func(id string) []ToolCall {
		return []ToolCall{{ID: id, Name: "read", Arguments: json.RawMessage(`{"path":"a.go"}`)}}
	}
	return []Message{
		{Role: RoleSystem, Content: "You are pi."},
		{Role: RoleSystem, Content: ""},
		{Role: RoleUser, Content: "Fix it & \"quote\" it."},
		{Role: RoleUser, Content: "  "},
		{Role: RoleUser, Parts: []Part{{Type: PartText, Text: "with parts"}, {Type: PartText, Text: " "}}},
		{Role: RoleAssistant, Content: "Sure."},
		{Role: RoleAssistant, Content: ""},
		{Role: RoleAssistant, Content: "Reading.", Thinking: "look", ThinkingSignature: "sig"},
		{Role: RoleAssistant, ToolCalls: call("c1")},
		{Role: RoleTool, ToolCallID: "c1", ToolName: "read", Content: "package a\n"},
		{Role: RoleAssistant, Content: "Two at once.", ToolCalls: append(call("c2"), call("c3")...)},
		{Role: RoleTool, ToolCallID: "c2", ToolName: "read", Content: "one"},
		{Role: RoleTool, ToolCallID: "c3", ToolName: "read", Content: "two", IsError: true},
		{Role: RoleUser, Content: "And then?"},
	}
}

// A memo serves only the history it was made in: when messages are left
// out between requests (a compaction, a move on the tree), so that others
// merge, regroup or are numbered differently, the bodies built from the
// same Memos equal bodies built without any, request after request.
func TestMemoFollowsHistoryChanges(t *testing.T) {
	routes := map[string]Route{
		"openai":    testRoute(APIOpenAICompletions),
		"anthropic": func() Route { r := testRoute(APIAnthropicMessages); return r }(),
		"responses": testRoute(APIOpenAIResponses),
		"google":    testRoute(APIGoogleGenerativeAI),
	}
	pool := memoized(memoPool())
	rng := rand.New(rand.NewPCG(1, 2))
	for name, route := range routes {
		t.Run(name, func(t *testing.T) {
			for trial := range 300 {
				var msgs []Message
				for _, m := range pool {
					if rng.IntN(3) > 0 {
						msgs = append(msgs, m)
					}
				}
				req := Request{Messages: msgs, MaxTokens: 256, CacheRetention: CacheShort}
				plain := Request{Messages: append([]Message(nil), msgs...), MaxTokens: 256, CacheRetention: CacheShort}
				for i := range plain.Messages {
					plain.Messages[i].Memo = nil
				}
				want, werr := DryRun(route, plain)
				got, gerr := DryRun(route, req)
				if (werr == nil) != (gerr == nil) {
					t.Fatalf("trial %d: error %v with memos, %v without", trial, gerr, werr)
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("trial %d: body with memos differs:\n got %s\nwant %s", trial, got, want)
				}
			}
		})
	}
}

// A session's ToolsMemo keeps its declarations checked and encoded: the
// bodies are the ones built without it, a changed declaration is
// re-encoded, and a request with unchanged declarations does not encode
// them again.
func TestToolsMemo(t *testing.T) {
	for _, route := range []Route{testRoute(APIOpenAICompletions), compatRoute(), testRoute(APIAnthropicMessages), testRoute(APIOpenAIResponses), testRoute(APIGoogleGenerativeAI)} {
		memo := &ToolsMemo{}
		tools := toolConversation().Tools
		for step := range 4 {
			req := Request{Messages: memoized(longHistory(3)), Tools: append([]ToolSpec(nil), tools...), CacheRetention: []string{"", CacheLong, CacheLong, CacheNone}[step]}
			if step == 2 {
				req.Tools[0].Parameters = json.RawMessage(`{"type":"object","properties":{"file":{"type":"string"}}}`)
				tools = req.Tools
			}
			want, err := DryRun(route, req)
			if err != nil {
				t.Fatal(err)
			}
			req.ToolsMemo = memo
			for pass := range 2 {
				got, err := DryRun(route, req)
				if err != nil || !bytes.Equal(got, want) {
					t.Fatalf("%s, step %d, pass %d: the body with the memo differs (%v):\n got %s\nwant %s", route.API, step, pass, err, got, want)
				}
			}
		}
		if route.API != APIOpenAICompletions && route.API != APIAnthropicMessages {
			continue
		}
		// Cheaper by at least the encoded list once it is kept.
		req := Request{Messages: memoized(longHistory(3)), Tools: toolConversation().Tools}
		DryRun(route, req)
		plain, _ := allocated(func() { DryRun(route, req) })
		req.ToolsMemo = &ToolsMemo{}
		DryRun(route, req)
		kept, _ := allocated(func() { DryRun(route, req) })
		if plain < kept+512 {
			t.Errorf("%s: a request allocates %d bytes with the tools kept, %d without: they were encoded again", route.API, kept, plain)
		}
	}
}

// BenchmarkHistoryWalks is what a chat completions request does with every
// message of a long, memoised history before it writes the body: check it,
// look for unanswered tool calls, list the messages' encodings.
func BenchmarkHistoryWalks(b *testing.B) {
	msgs := memoized(longHistory(1000))
	if _, err := openAIMessageList(closeToolCalls(msgs), false); err != nil { // memos filled
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := checkMessages("p", msgs); err != nil {
			b.Fatal(err)
		}
		if _, err := openAIMessageList(closeToolCalls(msgs), false); err != nil {
			b.Fatal(err)
		}
	}
}
