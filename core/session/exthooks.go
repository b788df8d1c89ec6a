package session

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"

	"github.com/piwasm/pi/abi"
	"github.com/piwasm/pi/core/agent"
	"github.com/piwasm/pi/core/hooks"
	"github.com/piwasm/pi/core/prompt"
	"github.com/piwasm/pi/core/tool"
)

// ExtensionHooks are the extensions' loop hooks as agent.Hooks: the
// Gate's Next. They translate the loop's values into the ABI's events and
// leave the rules (chaining, first block wins, failure policies) to the
// dispatcher.
type ExtensionHooks struct {
	Dispatcher *hooks.Dispatcher
	// Cwd is the session's working directory, told to tool_call hooks.
	Cwd  string
	turn atomic.Int64
}

// NewExtensionHooks returns the loop hooks of d, or nil when no extension
// declares one (the loop then skips the work of building events).
func NewExtensionHooks(d *hooks.Dispatcher, cwd string) agent.Hooks {
	if d == nil || !d.HasToolHooks() {
		return nil
	}
	return &ExtensionHooks{Dispatcher: d, Cwd: cwd}
}

// ToolCall asks the tool_call chain. Replaced arguments are checked
// against the tool's schema before a later extension sees them; the loop
// checks the final ones again.
func (x *ExtensionHooks) ToolCall(ctx context.Context, t tool.Tool, call tool.Call) (agent.Verdict, error) {
	in, err := argsJSON(call.Args)
	if err != nil {
		return agent.Verdict{}, fmt.Errorf("encode the arguments for the extensions: %w", err)
	}
	ev := abi.ToolCallEvent{ToolName: t.Name, Source: t.Source, Input: in, Cwd: x.Cwd}
	validate := func(raw json.RawMessage) (json.RawMessage, error) {
		args, err := t.Prepare(raw)
		if err != nil {
			return nil, err
		}
		return json.Marshal(args)
	}
	v, err := x.Dispatcher.ToolCall(ctx, ev, call.ID, validate)
	if err != nil {
		return agent.Verdict{}, err
	}
	out := agent.Verdict{Block: v.Block, Reason: v.Reason}
	if v.Extension != "" {
		out.Source = hooks.SourceOf(v.Extension)
	}
	if v.Input != nil && !v.Block {
		if err := json.Unmarshal(v.Input, &out.Args); err != nil {
			return agent.Verdict{}, fmt.Errorf("extension %s replaced the arguments: %w", v.Extension, err)
		}
	}
	return out, nil
}

// ToolResult passes the result through the tool_result chain. Details are
// the tool's own and stay as they were.
func (x *ExtensionHooks) ToolResult(ctx context.Context, t tool.Tool, call tool.Call, res tool.Result) (tool.Result, error) {
	in, err := argsJSON(call.Args)
	if err != nil {
		return res, fmt.Errorf("encode the arguments for the extensions: %w", err)
	}
	ev := abi.ToolResultEvent{ToolName: t.Name, Source: t.Source, Input: in, Content: ToABIParts(res.Content), IsError: res.IsError}
	out, err := x.Dispatcher.ToolResult(ctx, ev, call.ID)
	if err != nil {
		return res, err
	}
	res.Content = FromABIParts(out.Content)
	res.IsError = out.IsError
	return res, nil
}

// TurnEnd tells the extensions a turn ended.
func (x *ExtensionHooks) TurnEnd(ctx context.Context, m prompt.Message, results []prompt.Message) {
	ev := abi.TurnEndEvent{TurnIndex: int(x.turn.Add(1) - 1), Message: rawJSON(m)}
	for _, r := range results {
		ev.ToolResults = append(ev.ToolResults, rawJSON(r))
	}
	x.Dispatcher.TurnEnd(ctx, ev)
}

// AgentEnd tells the extensions the run ended.
func (x *ExtensionHooks) AgentEnd(ctx context.Context, msgs []prompt.Message) {
	ev := abi.AgentEndEvent{Messages: []json.RawMessage{}}
	for _, m := range msgs {
		ev.Messages = append(ev.Messages, rawJSON(m))
	}
	x.Dispatcher.AgentEnd(ctx, ev)
}

// argsJSON encodes a call's arguments as guests read them: without
// encoding/json's HTML escaping, since commands are full of &, < and >
// and each escape costs a guest's decoder a slow path.
func argsJSON(args map[string]any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(args); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

func rawJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage("null")
	}
	return b
}

// ToABIParts converts a result's content to the ABI's parts.
func ToABIParts(ps []tool.Part) []abi.ContentPart {
	out := make([]abi.ContentPart, len(ps))
	for i, p := range ps {
		out[i] = abi.ContentPart{Type: p.Type, Text: p.Text, Data: p.Data, MimeType: p.MimeType}
	}
	return out
}

// FromABIParts converts the ABI's parts to a result's content.
func FromABIParts(ps []abi.ContentPart) []tool.Part {
	out := make([]tool.Part, len(ps))
	for i, p := range ps {
		out[i] = tool.Part{Type: p.Type, Text: p.Text, Data: p.Data, MimeType: p.MimeType}
	}
	return out
}
