package jsext

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/piwasm/pi/abi"
	"github.com/piwasm/pi/core/hooks"
	"github.com/piwasm/pi/core/tool"
	"github.com/piwasm/pi/host/jsext/engine"
)

// The extension is a hooks.Handler (with the loop and session hooks, and
// command completion): pi's dispatcher runs it in load order beside WASM
// extensions. Each pi hook is the established harness's event of the same
// name.
var (
	_ hooks.Handler        = (*Extension)(nil)
	_ hooks.ToolHandler    = (*Extension)(nil)
	_ hooks.SessionHandler = (*Extension)(nil)
	_ hooks.Completer      = (*Extension)(nil)
)

// Handles reports whether the extension listens to hook.
func (e *Extension) Handles(hook string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if hook == abi.HookCommand {
		return len(e.reg.Commands) > 0
	}
	for _, ev := range e.reg.Events {
		if ev == hook {
			return true
		}
	}
	return false
}

// FailurePolicy is the policy the options gave (skip by default).
func (e *Extension) FailurePolicy() string {
	if e.opts.Failure == hooks.PolicyAbort {
		return hooks.PolicyAbort
	}
	return hooks.PolicySkip
}

// Commands lists the registered commands.
func (e *Extension) Commands() []abi.CommandInfo {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]abi.CommandInfo, 0, len(e.reg.Commands))
	for _, c := range e.reg.Commands {
		out = append(out, abi.CommandInfo{Name: c.Name, Description: c.Description, Completions: c.Completions})
	}
	return out
}

// eventResult is the part every event's answer shares: the messages of
// handlers that threw (the established harness reports them and goes on
// with the next handler).
type eventResult struct {
	Errors []string `json:"errors"`
}

func (r eventResult) err() error {
	if len(r.Errors) == 0 {
		return nil
	}
	return &engine.ScriptError{Message: strings.Join(r.Errors, "; ")}
}

// event runs the handlers of one event and decodes the answer into out.
func (e *Extension) event(ctx context.Context, name string, data any, out any) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	err := e.dispatch(ctx, map[string]any{"kind": "event", "event": name, "data": data}, e.budget, out)
	return e.failure(err)
}

// failure words an engine error for a diagnostic.
func (e *Extension) failure(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, engine.ErrTimeout):
		return fmt.Errorf("ran past its time limit of %v and was stopped", e.budget)
	case errors.Is(err, engine.ErrMemory):
		return fmt.Errorf("ran out of memory")
	}
	return err
}

func (e *Extension) BeforeAgentStart(ctx context.Context, ev abi.BeforeAgentStartEvent, fetch hooks.Fetcher) (abi.BeforeAgentStartResult, error) {
	input := ev.Input
	sp := ev.SystemPrompt
	if fetch != nil {
		if b, ok := fetch(abi.KeyInput); ok {
			input = string(b)
		}
		if sp == "" && ev.SystemPromptBytes > 0 {
			if b, ok := fetch(abi.KeySystemPrompt); ok {
				sp = string(b)
			}
		}
	}
	var r struct {
		eventResult
		SystemPrompt *string `json:"systemPrompt"`
		Messages     []struct {
			Text string `json:"text"`
		} `json:"messages"`
	}
	data := map[string]any{"prompt": input, "images": []any{}, "systemPrompt": sp, "messageType": "user"}
	if err := e.event(ctx, "before_agent_start", data, &r); err != nil {
		return abi.BeforeAgentStartResult{}, err
	}
	if err := r.err(); err != nil {
		return abi.BeforeAgentStartResult{}, err
	}
	var res abi.BeforeAgentStartResult
	res.ForcePrompt = r.SystemPrompt
	var texts []string
	for _, m := range r.Messages {
		if m.Text != "" {
			texts = append(texts, m.Text)
		}
	}
	res.Message = strings.Join(texts, "\n\n")
	return res, nil
}

// Assemble is a WASM extension's hook only.
func (e *Extension) Assemble(context.Context, abi.AssembleEvent, hooks.Fetcher) (abi.AssembleResult, error) {
	return abi.AssembleResult{}, nil
}

func (e *Extension) Input(ctx context.Context, ev abi.InputEvent, _ hooks.Fetcher) (abi.InputResult, error) {
	var r struct {
		eventResult
		Action string `json:"action"`
		Text   string `json:"text"`
	}
	if err := e.event(ctx, "input", map[string]any{"text": ev.Text, "source": "interactive"}, &r); err != nil {
		return abi.InputResult{}, err
	}
	if err := r.err(); err != nil {
		return abi.InputResult{}, err
	}
	switch r.Action {
	case "handled":
		return abi.InputResult{Action: abi.ActionHandled}, nil
	case "transform":
		return abi.InputResult{Action: abi.ActionTransform, Text: r.Text}, nil
	}
	return abi.InputResult{Action: abi.ActionContinue}, nil
}

// Command runs a registered command. What it sends with
// pi.sendUserMessage while it runs is what the command sends.
func (e *Extension) Command(ctx context.Context, ev abi.CommandEvent, _ hooks.Fetcher) (abi.CommandResult, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.call = &callState{sends: []string{}}
	defer func() { e.call = nil }()
	err := e.dispatch(ctx, map[string]any{"kind": "command", "name": ev.Name, "args": ev.Args}, e.budget, nil)
	if err != nil {
		return abi.CommandResult{}, e.failure(err)
	}
	return abi.CommandResult{Send: strings.Join(e.call.sends, "\n\n")}, nil
}

// CompleteCommand asks the command's getArgumentCompletions.
func (e *Extension) CompleteCommand(ctx context.Context, ev abi.CommandCompleteEvent) (abi.CommandCompleteResult, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	var r abi.CommandCompleteResult
	err := e.dispatch(ctx, map[string]any{"kind": "complete", "name": ev.Name, "prefix": ev.Prefix}, min(e.budget, hooks.CompletionTimeout), &r)
	return r, e.failure(err)
}

func (e *Extension) ToolCall(ctx context.Context, ev abi.ToolCallEvent, fetch hooks.Fetcher) (abi.ToolCallResult, error) {
	id := ev.ToolCallID
	if fetch != nil {
		if b, ok := fetch(abi.KeyToolCallID); ok {
			id = string(b)
		}
	}
	var input any = map[string]any{}
	if len(ev.Input) > 0 {
		input = json.RawMessage(ev.Input)
	}
	var r struct {
		Block  bool            `json:"block"`
		Reason string          `json:"reason"`
		Input  json.RawMessage `json:"input"`
	}
	if err := e.event(ctx, "tool_call", map[string]any{"toolName": ev.ToolName, "toolCallId": id, "input": input}, &r); err != nil {
		return abi.ToolCallResult{}, err
	}
	return abi.ToolCallResult{Block: r.Block, Reason: r.Reason, Input: r.Input}, nil
}

func (e *Extension) ToolResult(ctx context.Context, ev abi.ToolResultEvent, fetch hooks.Fetcher) (abi.ToolResultPatch, error) {
	id := ev.ToolCallID
	if fetch != nil {
		if b, ok := fetch(abi.KeyToolCallID); ok {
			id = string(b)
		}
	}
	var input any = map[string]any{}
	if len(ev.Input) > 0 {
		input = json.RawMessage(ev.Input)
	}
	content := ev.Content
	if content == nil {
		content = []abi.ContentPart{}
	}
	var r struct {
		eventResult
		Content []abi.ContentPart `json:"content"`
		IsError *bool             `json:"isError"`
	}
	data := map[string]any{"toolName": ev.ToolName, "toolCallId": id, "input": input, "content": content, "isError": ev.IsError}
	if err := e.event(ctx, "tool_result", data, &r); err != nil {
		return abi.ToolResultPatch{}, err
	}
	if err := r.err(); err != nil {
		return abi.ToolResultPatch{}, err
	}
	return abi.ToolResultPatch{Content: r.Content, IsError: r.IsError}, nil
}

func (e *Extension) observe(ctx context.Context, name string, data any) error {
	var r eventResult
	if err := e.event(ctx, name, data, &r); err != nil {
		return err
	}
	return r.err()
}

func (e *Extension) TurnEnd(ctx context.Context, ev abi.TurnEndEvent, _ hooks.Fetcher) error {
	results := ev.ToolResults
	if results == nil {
		results = []json.RawMessage{}
	}
	return e.observe(ctx, "turn_end", map[string]any{"turnIndex": ev.TurnIndex, "message": rawOrNull(ev.Message), "toolResults": results})
}

func (e *Extension) AgentEnd(ctx context.Context, ev abi.AgentEndEvent, _ hooks.Fetcher) error {
	msgs := ev.Messages
	if msgs == nil {
		msgs = []json.RawMessage{}
	}
	return e.observe(ctx, "agent_end", map[string]any{"messages": msgs})
}

func (e *Extension) SessionStart(ctx context.Context, ev abi.SessionStartEvent, _ hooks.Fetcher) error {
	data := map[string]any{"reason": ev.Reason}
	if ev.PreviousSessionFile != "" {
		data["previousSessionFile"] = ev.PreviousSessionFile
	}
	return e.observe(ctx, "session_start", data)
}

func (e *Extension) SessionShutdown(ctx context.Context, ev abi.SessionShutdownEvent, _ hooks.Fetcher) error {
	data := map[string]any{"reason": ev.Reason}
	if ev.TargetSessionFile != "" {
		data["targetSessionFile"] = ev.TargetSessionFile
	}
	return e.observe(ctx, "session_shutdown", data)
}

func (e *Extension) SessionBeforeSwitch(ctx context.Context, ev abi.SessionBeforeSwitchEvent, _ hooks.Fetcher) (abi.SessionCancelResult, error) {
	var r struct {
		eventResult
		Cancel bool `json:"cancel"`
	}
	data := map[string]any{"reason": ev.Reason}
	if ev.TargetSessionFile != "" {
		data["targetSessionFile"] = ev.TargetSessionFile
	}
	if err := e.event(ctx, "session_before_switch", data, &r); err != nil {
		return abi.SessionCancelResult{}, err
	}
	return abi.SessionCancelResult{Cancel: r.Cancel}, r.err()
}

func (e *Extension) SessionBeforeFork(ctx context.Context, ev abi.SessionBeforeForkEvent, _ hooks.Fetcher) (abi.SessionBeforeForkResult, error) {
	var r struct {
		eventResult
		Cancel                  bool `json:"cancel"`
		SkipConversationRestore bool `json:"skipConversationRestore"`
	}
	if err := e.event(ctx, "session_before_fork", map[string]any{"entryId": ev.EntryID, "position": ev.Position}, &r); err != nil {
		return abi.SessionBeforeForkResult{}, err
	}
	return abi.SessionBeforeForkResult{Cancel: r.Cancel, SkipConversationRestore: r.SkipConversationRestore}, r.err()
}

func rawOrNull(m json.RawMessage) json.RawMessage {
	if len(m) == 0 {
		return json.RawMessage("null")
	}
	return m
}

// Tools returns the tools the extension registered, as pi runs them: in
// the extension's instance, under its limits.
func (e *Extension) Tools(cwd string) []tool.Tool {
	reg := e.Registry()
	out := make([]tool.Tool, 0, len(reg.Tools))
	for _, t := range reg.Tools {
		params := t.Parameters
		if len(params) == 0 || string(params) == "null" {
			params = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		name := t.Name
		var guidelines string
		if len(t.Guidelines) > 0 {
			guidelines = strings.Join(t.Guidelines, "\n")
		}
		tt := tool.Tool{
			Name: t.Name, Description: t.Description, Parameters: params,
			Snippet: t.Snippet, Source: "extension:" + e.name,
			Run: func(ctx context.Context, call tool.Call, update tool.Update) (tool.Result, error) {
				return e.runTool(ctx, name, call, update), nil
			},
		}
		if guidelines != "" {
			tt.Guidelines = t.Guidelines
		}
		out = append(out, tt)
	}
	return out
}

func (e *Extension) runTool(ctx context.Context, name string, call tool.Call, update tool.Update) tool.Result {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.call = &callState{}
	if update != nil {
		e.call.update = func(text string, details json.RawMessage) {
			r := tool.TextResult(text)
			r.Details = details
			update(r)
		}
	}
	defer func() { e.call = nil }()
	params := call.Args
	if params == nil {
		params = map[string]any{}
	}
	var r struct {
		Content []tool.Part     `json:"content"`
		Details json.RawMessage `json:"details"`
		IsError bool            `json:"isError"`
	}
	err := e.dispatch(ctx, map[string]any{"kind": "tool", "name": name, "toolCallId": call.ID, "params": params}, e.budget, &r)
	if err != nil {
		return tool.ErrorResult("Tool %s of extension %s failed: %v", name, e.name, e.failure(err))
	}
	if string(r.Details) == "null" {
		r.Details = nil
	}
	return tool.Result{Content: r.Content, Details: r.Details, IsError: r.IsError}
}
