//go:build !wasip1

package sdk

import (
	"encoding/json"
	"fmt"

	"github.com/piwasm/pi/abi"
)

// Harness runs the registered handlers on the host, without pi and without
// WebAssembly, for unit tests of an extension:
//
//	h := &sdk.Harness{Config: `{"text": "hello"}`}
//	res, err := h.BeforeAgentStart(abi.BeforeAgentStartEvent{Input: "hi"})
//
// The handlers run through the same wrapper as in a module (the event is
// encoded and decoded, a panic becomes an error, the envelope is checked),
// but the host functions are served from the Harness's fields. One Harness
// call runs at a time across the process. A test of the built module under
// pi's real limits and grants is `pi ext test`.
type Harness struct {
	// Config is the manifest's config as JSON ("" is null).
	Config string
	// Flags are the flags' values as Flag returns them (a boolean flag's
	// "true" or "false"); a flag not here is absent.
	Flags map[string]string
	// Values serves other fetch keys (abi.KeySystemPrompt, abi.KeyInput,
	// abi.KeySkills, abi.KeySectionPrefix+name, abi.KeyContextPrefix+path).
	Values map[string]string
	// Files are the project files ReadFile may read (slash paths relative
	// to the project root); any other path is denied.
	Files map[string]string
	// Logs collects Log lines as "level message".
	Logs []string
	// Updates collects the partial output a tool sent with Update.
	Updates []string
	// Answer answers the questions the handler asks (Select, Confirm,
	// AskInput; kind is "select", "confirm" or "input"): the chosen option
	// or typed text ("yes" confirms), or ok false for no answer. Nil gives
	// every question its default answer, as pi does in print mode.
	Answer func(kind string, r abi.UIRequest) (value string, ok bool)
	// Asked collects every question and notification as "kind: title".
	Asked []string

	event []byte
	out   []byte
}

// BeforeAgentStart runs the before_agent_start handler.
func (h *Harness) BeforeAgentStart(ev abi.BeforeAgentStartEvent) (abi.BeforeAgentStartResult, error) {
	var res abi.BeforeAgentStartResult
	err := harnessCall(h, ev, handleBeforeAgentStart, &res)
	return res, err
}

// Assemble runs the system-prompt/assemble handler.
func (h *Harness) Assemble(ev abi.AssembleEvent) (abi.AssembleResult, error) {
	var res abi.AssembleResult
	err := harnessCall(h, ev, handleAssemble, &res)
	return res, err
}

// Input runs the input handler.
func (h *Harness) Input(ev abi.InputEvent) (abi.InputResult, error) {
	var res abi.InputResult
	err := harnessCall(h, ev, handleInput, &res)
	return res, err
}

// Command runs the handler of command ev.Name.
func (h *Harness) Command(ev abi.CommandEvent) (abi.CommandResult, error) {
	var res abi.CommandResult
	err := harnessCall(h, ev, handleCommand, &res)
	return res, err
}

func harnessCall[T any, E event[T]](h *Harness, ev any, handle func(E) (abi.JSONAppender, error), res any) error {
	raw, err := json.Marshal(ev)
	if err != nil {
		return fmt.Errorf("encoding event: %w", err)
	}
	harnessMu.Lock()
	defer harnessMu.Unlock()
	configRaw, flagsRaw = nil, nil // the config may differ from the last call's
	current, h.event, h.out = h, raw, nil
	defer func() { current = nil }()
	run(handle)
	return abi.DecodeEnvelope(h.out, res)
}

// ToolCall runs the tool_call handler.
func (h *Harness) ToolCall(ev abi.ToolCallEvent) (abi.ToolCallResult, error) {
	var res abi.ToolCallResult
	err := harnessCall(h, ev, handleToolCall, &res)
	return res, err
}

// ToolResult runs the tool_result handler.
func (h *Harness) ToolResult(ev abi.ToolResultEvent) (abi.ToolResultPatch, error) {
	var res abi.ToolResultPatch
	err := harnessCall(h, ev, handleToolResult, &res)
	return res, err
}

// Tool runs the handler of tool ev.ToolName; the text of every Update it
// sends is appended to Harness.Updates.
func (h *Harness) Tool(ev abi.ToolEvent) (abi.ToolResult, error) {
	var res abi.ToolResult
	err := harnessCall(h, ev, handleTool, &res)
	return res, err
}

// CompleteCommand runs the completer of ev.Name.
func (h *Harness) CompleteCommand(ev abi.CommandCompleteEvent) (abi.CommandCompleteResult, error) {
	var res abi.CommandCompleteResult
	err := harnessCall(h, ev, handleCommandComplete, &res)
	return res, err
}

// TurnEnd runs the turn_end handler.
func (h *Harness) TurnEnd(ev abi.TurnEndEvent) error {
	return harnessCall(h, ev, handleTurnEnd, &struct{}{})
}

// AgentEnd runs the agent_end handler.
func (h *Harness) AgentEnd(ev abi.AgentEndEvent) error {
	return harnessCall(h, ev, handleAgentEnd, &struct{}{})
}

// SessionBeforeCompact runs the session_before_compact handler.
func (h *Harness) SessionBeforeCompact(ev abi.SessionBeforeCompactEvent) (abi.SessionBeforeCompactResult, error) {
	var res abi.SessionBeforeCompactResult
	err := harnessCall(h, ev, handleSessionBeforeCompact, &res)
	return res, err
}

// Context runs the context handler.
func (h *Harness) Context(ev abi.ContextEvent) (abi.ContextResult, error) {
	var res abi.ContextResult
	err := harnessCall(h, ev, handleContext, &res)
	return res, err
}

// BeforeProviderRequest runs the before_provider_request handler.
func (h *Harness) BeforeProviderRequest(ev abi.BeforeProviderRequestEvent) (abi.BeforeProviderRequestResult, error) {
	var res abi.BeforeProviderRequestResult
	err := harnessCall(h, ev, handleBeforeProviderRequest, &res)
	return res, err
}

// SessionStart runs the session_start handler.
func (h *Harness) SessionStart(ev abi.SessionStartEvent) error {
	return harnessCall(h, ev, handleSessionStart, &struct{}{})
}

// SessionShutdown runs the session_shutdown handler.
func (h *Harness) SessionShutdown(ev abi.SessionShutdownEvent) error {
	return harnessCall(h, ev, handleSessionShutdown, &struct{}{})
}

// SessionBeforeSwitch runs the session_before_switch handler.
func (h *Harness) SessionBeforeSwitch(ev abi.SessionBeforeSwitchEvent) (abi.SessionCancelResult, error) {
	var res abi.SessionCancelResult
	err := harnessCall(h, ev, handleSessionBeforeSwitch, &res)
	return res, err
}

// SessionBeforeFork runs the session_before_fork handler.
func (h *Harness) SessionBeforeFork(ev abi.SessionBeforeForkEvent) (abi.SessionBeforeForkResult, error) {
	var res abi.SessionBeforeForkResult
	err := harnessCall(h, ev, handleSessionBeforeFork, &res)
	return res, err
}
