package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/piwasm/pi/core/prompt"
	"github.com/piwasm/pi/core/tool"
)

// script is a fake model: each Stream call plays the next reply.
type script struct {
	mu      sync.Mutex
	replies []prompt.Message
	errs    []error
	calls   int
}

func (s *script) Stream(ctx context.Context, start func(prompt.Message), emit func(Delta)) (prompt.Message, error) {
	s.mu.Lock()
	i := s.calls
	s.calls++
	s.mu.Unlock()
	if i >= len(s.replies) {
		return prompt.Message{StopReason: "error", ErrorMessage: "script ran out"}, errors.New("script ran out")
	}
	m := s.replies[i]
	start(prompt.Message{API: "fake", Provider: "fake", Model: "m"})
	for j, b := range m.Content.Blocks {
		if b.Type == "text" {
			emit(Delta{Type: "text_delta", ContentIndex: j, Delta: b.Text})
		}
	}
	var err error
	if i < len(s.errs) {
		err = s.errs[i]
	}
	return m, err
}

func call(id, name, args string) prompt.Block {
	return prompt.Block{Type: "toolCall", ID: id, Name: name, Arguments: json.RawMessage(args)}
}

func reply(stop string, blocks ...prompt.Block) prompt.Message {
	return prompt.Message{Role: "assistant", Content: prompt.Content{Blocks: blocks}, StopReason: stop}
}

type registry map[string]tool.Tool

func (r registry) Get(n string) (tool.Tool, bool) { t, ok := r[n]; return t, ok }

var echoSchema = json.RawMessage(`{"type":"object","required":["text"],"properties":{"text":{"type":"string"},"delay":{"type":"number"}}}`)

// echo answers with its text after delay milliseconds.
func echo(mode tool.Mode, running *int32, peak *int32) tool.Tool {
	return tool.Tool{Name: "echo", Parameters: echoSchema, Mode: mode, Source: "builtin",
		Run: func(ctx context.Context, c tool.Call, u tool.Update) (tool.Result, error) {
			if running != nil {
				n := atomic.AddInt32(running, 1)
				for {
					p := atomic.LoadInt32(peak)
					if n <= p || atomic.CompareAndSwapInt32(peak, p, n) {
						break
					}
				}
				defer atomic.AddInt32(running, -1)
			}
			if d, ok := c.Args["delay"].(float64); ok {
				select {
				case <-time.After(time.Duration(d) * time.Millisecond):
				case <-ctx.Done():
					return tool.ErrorResult("stopped"), nil
				}
			}
			return tool.TextResult(c.Args["text"].(string)), nil
		}}
}

func texts(ms []prompt.Message) []string {
	var out []string
	for _, m := range ms {
		s := m.Role + ":" + m.Content.Text()
		if m.Role == prompt.RoleToolResult {
			s = fmt.Sprintf("%s[%s err=%v]:%s", m.Role, m.ToolCallID, m.Failed(), m.Content.Text())
		}
		out = append(out, s)
	}
	return out
}

func TestLoopResultsInCallOrderWhenCallsFinishOutOfOrder(t *testing.T) {
	var running, peak int32
	m := &script{replies: []prompt.Message{
		reply("toolUse",
			call("a", "echo", `{"text":"slow","delay":150}`),
			call("b", "echo", `{"text":"fast","delay":1}`),
			call("c", "echo", `{"text":"mid","delay":40}`)),
		reply("stop", prompt.Block{Type: "text", Text: "done"}),
	}}
	var ends []string
	l := &Loop{Model: m, Tools: registry{"echo": echo(tool.Parallel, &running, &peak)},
		Emit: func(e Event) {
			if e.Type == ToolExecutionEnd {
				ends = append(ends, e.ToolCallID)
			}
		}}
	out, err := l.Run(context.Background(), []prompt.Message{{Role: "user", Content: prompt.TextContent("go")}})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(texts(out), "|")
	want := "user:go|assistant:|toolResult[a err=false]:slow|toolResult[b err=false]:fast|toolResult[c err=false]:mid|assistant:done"
	if got != want {
		t.Fatalf("messages\n got %s\nwant %s", got, want)
	}
	if peak < 2 {
		t.Errorf("calls did not overlap (peak %d)", peak)
	}
	if ends[0] == "a" {
		t.Errorf("the slow call ended first: %v (calls ran one after another?)", ends)
	}
}

func TestLoopSequentialToolRunsOneAtATime(t *testing.T) {
	var running, peak int32
	m := &script{replies: []prompt.Message{
		reply("toolUse", call("a", "echo", `{"text":"1","delay":20}`), call("b", "echo", `{"text":"2","delay":20}`)),
		reply("stop"),
	}}
	l := &Loop{Model: m, Tools: registry{"echo": echo(tool.Sequential, &running, &peak)}}
	if _, err := l.Run(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if peak != 1 {
		t.Fatalf("peak concurrency %d, want 1", peak)
	}
}

func TestLoopErrorResultsGoBackToTheModel(t *testing.T) {
	m := &script{replies: []prompt.Message{
		reply("toolUse",
			call("u", "nosuch", `{}`),
			call("i", "echo", `{"delay":1}`),
			call("s", "echo", `{"text":42}`),
			call("k", "echo", `{"text":"ok"}`)),
		reply("stop", prompt.Block{Type: "text", Text: "fine"}),
	}}
	l := &Loop{Model: m, Tools: registry{"echo": echo(tool.Parallel, nil, nil)}}
	out, err := l.Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	res := out[1:5]
	for i, wantErr := range []bool{true, true, false, false} {
		if res[i].Failed() != wantErr {
			t.Errorf("result %d (%s) failed=%v, want %v: %s", i, res[i].ToolCallID, res[i].Failed(), wantErr, res[i].Content.Text())
		}
	}
	if !strings.Contains(res[0].Content.Text(), "nosuch") {
		t.Errorf("unknown-tool result does not name the tool: %q", res[0].Content.Text())
	}
	if !strings.Contains(res[1].Content.Text(), "text") {
		t.Errorf("invalid-arguments result does not name the field: %q", res[1].Content.Text())
	}
	if res[2].Content.Text() != "42" {
		t.Errorf("a number was not coerced to the string the schema wants: %q", res[2].Content.Text())
	}
	if m.calls != 2 {
		t.Errorf("model called %d times, want 2 (the run goes on after bad calls)", m.calls)
	}
}

func TestLoopLengthStopRunsNoCalls(t *testing.T) {
	ran := false
	tl := tool.Tool{Name: "echo", Parameters: echoSchema, Run: func(context.Context, tool.Call, tool.Update) (tool.Result, error) {
		ran = true
		return tool.TextResult("x"), nil
	}}
	m := &script{replies: []prompt.Message{reply("length", call("a", "echo", `{"text":"x"}`))}}
	l := &Loop{Model: m, Tools: registry{"echo": tl}}
	_, err := l.Run(context.Background(), nil)
	if !errors.Is(err, ErrLength) || ran {
		t.Fatalf("err=%v ran=%v; want ErrLength and no call run", err, ran)
	}
}

type gate struct {
	block    map[string]string
	replace  map[string]map[string]any
	patched  int
	turnEnds int
	agentEnd int
}

func (g *gate) ToolCall(_ context.Context, _ tool.Tool, c tool.Call) (Verdict, error) {
	if r, ok := g.block[c.ID]; ok {
		return Verdict{Block: true, Reason: r, Source: "extension:policy"}, nil
	}
	if a, ok := g.replace[c.ID]; ok {
		return Verdict{Args: a, Source: "extension:rewrite"}, nil
	}
	return Verdict{}, nil
}
func (g *gate) ToolResult(_ context.Context, _ tool.Tool, _ tool.Call, r tool.Result) (tool.Result, error) {
	g.patched++
	r.Content = append(r.Content, tool.Part{Type: "text", Text: "+patched"})
	return r, nil
}
func (g *gate) TurnEnd(context.Context, prompt.Message, []prompt.Message) { g.turnEnds++ }
func (g *gate) AgentEnd(context.Context, []prompt.Message)                { g.agentEnd++ }

func TestLoopHooksBlockReplaceAndPatch(t *testing.T) {
	g := &gate{
		block:   map[string]string{"a": "no force pushes"},
		replace: map[string]map[string]any{"b": {"text": "rewritten"}, "c": {"text": []any{1}}},
	}
	m := &script{replies: []prompt.Message{
		reply("toolUse", call("a", "echo", `{"text":"x"}`), call("b", "echo", `{"text":"y"}`), call("c", "echo", `{"text":"z"}`)),
		reply("stop"),
	}}
	l := &Loop{Model: m, Tools: registry{"echo": echo(tool.Parallel, nil, nil)}, Hooks: g}
	out, err := l.Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	a, b, c := out[1], out[2], out[3]
	if !a.Failed() || !strings.Contains(a.Content.Text(), "no force pushes") || !strings.Contains(a.Content.Text(), "extension:policy") {
		t.Errorf("blocked call: %q", a.Content.Text())
	}
	if b.Failed() || !strings.HasPrefix(b.Content.Text(), "rewritten") {
		t.Errorf("replaced args not used: %q", b.Content.Text())
	}
	if !c.Failed() || !strings.Contains(c.Content.Text(), "invalid") {
		t.Errorf("replacement with an invalid shape was not refused: %q", c.Content.Text())
	}
	if g.patched != 1 || g.turnEnds != 2 || g.agentEnd != 1 {
		t.Errorf("patched=%d turnEnds=%d agentEnd=%d", g.patched, g.turnEnds, g.agentEnd)
	}
}

func TestLoopAbortGivesEveryCallAResult(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{}, 4)
	slow := tool.Tool{Name: "slow", Parameters: json.RawMessage(`{"type":"object","properties":{}}`),
		Run: func(ctx context.Context, c tool.Call, u tool.Update) (tool.Result, error) {
			started <- struct{}{}
			<-ctx.Done()
			return tool.Result{}, ctx.Err()
		}}
	m := &script{replies: []prompt.Message{reply("toolUse", call("a", "slow", `{}`), call("b", "slow", `{}`), call("c", "nosuch", `{}`))}}
	var recorded []prompt.Message
	l := &Loop{Model: m, Tools: registry{"slow": slow}, Record: func(m prompt.Message) error { recorded = append(recorded, m); return nil }}
	go func() { <-started; <-started; cancel() }()
	_, err := l.Run(ctx, nil)
	if !errors.Is(err, ErrAborted) {
		t.Fatalf("err = %v, want ErrAborted", err)
	}
	var ids []string
	for _, m := range recorded {
		if m.Role == prompt.RoleToolResult {
			ids = append(ids, m.ToolCallID)
			if !m.Failed() {
				t.Errorf("%s: aborted call not an error", m.ToolCallID)
			}
		}
	}
	if strings.Join(ids, ",") != "a,b,c" {
		t.Fatalf("results %v, want a,b,c in order", ids)
	}
}

func TestLoopModelErrorEndsRunAfterRecording(t *testing.T) {
	m := &script{replies: []prompt.Message{{StopReason: "error", ErrorMessage: "HTTP 500"}}, errs: []error{errors.New("HTTP 500")}}
	var recorded []prompt.Message
	l := &Loop{Model: m, Tools: registry{}, Record: func(m prompt.Message) error { recorded = append(recorded, m); return nil }}
	_, err := l.Run(context.Background(), []prompt.Message{{Role: "user", Content: prompt.TextContent("hi")}})
	var me *ModelError
	if !errors.As(err, &me) {
		t.Fatalf("err = %v, want ModelError", err)
	}
	if len(recorded) != 2 || recorded[1].StopReason != "error" || recorded[1].ErrorMessage != "HTTP 500" {
		t.Fatalf("recorded %+v", recorded)
	}
}

func TestLoopSteeringAndFollowUp(t *testing.T) {
	m := &script{replies: []prompt.Message{
		reply("toolUse", call("a", "echo", `{"text":"x"}`)),
		reply("stop", prompt.Block{Type: "text", Text: "saw steer"}),
		reply("stop", prompt.Block{Type: "text", Text: "saw follow-up"}),
	}}
	steer := []prompt.Message{{Role: "user", Content: prompt.TextContent("steer")}}
	follow := []prompt.Message{{Role: "user", Content: prompt.TextContent("more")}}
	l := &Loop{Model: m, Tools: registry{"echo": echo(tool.Parallel, nil, nil)},
		Steer:    func() []prompt.Message { s := steer; steer = nil; return s },
		FollowUp: func() []prompt.Message { f := follow; follow = nil; return f }}
	out, err := l.Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(texts(out), "|")
	want := "assistant:|toolResult[a err=false]:x|user:steer|assistant:saw steer|user:more|assistant:saw follow-up"
	if got != want {
		t.Fatalf("\n got %s\nwant %s", got, want)
	}
}

func TestLoopPanickingToolBecomesAnErrorResult(t *testing.T) {
	bad := tool.Tool{Name: "bad", Parameters: json.RawMessage(`{"type":"object","properties":{}}`),
		Run: func(context.Context, tool.Call, tool.Update) (tool.Result, error) { panic("boom") }}
	m := &script{replies: []prompt.Message{reply("toolUse", call("a", "bad", `{}`)), reply("stop")}}
	out, err := l0(m, registry{"bad": bad}).Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !out[1].Failed() || !strings.Contains(out[1].Content.Text(), "boom") {
		t.Fatalf("result %q", out[1].Content.Text())
	}
}

func l0(m Model, r registry) *Loop { return &Loop{Model: m, Tools: r} }

func TestEventOrderAndShape(t *testing.T) {
	m := &script{replies: []prompt.Message{
		reply("toolUse", prompt.Block{Type: "text", Text: "look"}, call("a", "echo", `{"text":"x"}`)),
		reply("stop", prompt.Block{Type: "text", Text: "ok"}),
	}}
	var types []string
	var lines []string
	l := &Loop{Model: m, Tools: registry{"echo": echo(tool.Parallel, nil, nil)}, Now: func() time.Time { return time.UnixMilli(1) },
		Emit: func(e Event) {
			types = append(types, e.Type)
			b, err := json.Marshal(e)
			if err != nil {
				t.Fatal(err)
			}
			lines = append(lines, string(b))
		}}
	if _, err := l.Run(context.Background(), []prompt.Message{{Role: "user", Content: prompt.TextContent("hi"), Timestamp: 1}}); err != nil {
		t.Fatal(err)
	}
	want := "agent_start turn_start message_start message_end message_start message_update message_end tool_execution_start tool_execution_end message_start message_end turn_end turn_start message_start message_update message_end turn_end agent_end"
	if got := strings.Join(types, " "); got != want {
		t.Fatalf("events\n got %s\nwant %s", got, want)
	}
	if lines[5] != `{"type":"message_update","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"look"}}` {
		t.Errorf("message_update: %s", lines[5])
	}
	if !strings.HasPrefix(lines[7], `{"type":"tool_execution_start","toolCallId":"a","toolName":"echo","args":{"text":"x"}}`) {
		t.Errorf("tool_execution_start: %s", lines[7])
	}
	if !strings.HasPrefix(lines[8], `{"type":"tool_execution_end","toolCallId":"a","toolName":"echo","result":{"content":[{"type":"text","text":"x"}]},"isError":false,"durationMs":`) {
		t.Errorf("tool_execution_end: %s", lines[8])
	}
}

// TestToolResultDuration: a result of a call that ran records how long it
// ran (rounded to the millisecond, as in its tool_execution_end), and one
// of a call that was refused records none, as the established harness's
// results do.
func TestToolResultDuration(t *testing.T) {
	g := &gate{block: map[string]string{"a": "not this one"}}
	m := &script{replies: []prompt.Message{
		reply("toolUse", call("a", "echo", `{"text":"x"}`), call("b", "echo", `{"text":"y","delay":30}`)),
		reply("stop"),
	}}
	var ends []Event
	l := &Loop{Model: m, Tools: registry{"echo": echo(tool.Parallel, nil, nil)}, Hooks: g,
		Emit: func(e Event) {
			if e.Type == ToolExecutionEnd {
				ends = append(ends, e)
			}
		}}
	out, err := l.Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	a, b := out[1], out[2]
	if a.DurationMs != nil {
		t.Errorf("a refused call records a duration: %d", *a.DurationMs)
	}
	if b.DurationMs == nil || *b.DurationMs < 30 {
		t.Fatalf("the call that ran records %v, want at least 30 ms", b.DurationMs)
	}
	for _, e := range ends {
		if e.ToolCallID == "b" && e.DurationMs != *b.DurationMs {
			t.Errorf("tool_execution_end says %d ms, the result %d", e.DurationMs, *b.DurationMs)
		}
	}
	js, err := json.Marshal(b)
	if err != nil || !strings.Contains(string(js), `"durationMs":`) {
		t.Errorf("the result's JSON lacks durationMs: %s %v", js, err)
	}
}
