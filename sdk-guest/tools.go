package sdk

import (
	"encoding/json"
	"errors"
	"strconv"

	"github.com/piwasm/pi/abi"
)

var (
	toolCall   func(*abi.ToolCallEvent) (abi.ToolCallResult, error)
	toolResult func(*abi.ToolResultEvent) (abi.ToolResultPatch, error)
	turnEnd    func(*abi.TurnEndEvent) error
	agentEnd   func(*abi.AgentEndEvent) error
	tools      = map[string]func(*abi.ToolEvent) (abi.ToolResult, error){}
)

// OnToolCall registers the tool_call handler. Return Allow() to let the
// call go on, Block(reason) to refuse it, or Replace(input) to change its
// arguments (pi checks them against the tool's schema again).
func OnToolCall(h func(ev *abi.ToolCallEvent) (abi.ToolCallResult, error)) { toolCall = h }

// OnToolResult registers the tool_result handler. Return Unchanged() or a
// patch: a non-nil Content replaces the content, a non-nil IsError the
// error flag.
func OnToolResult(h func(ev *abi.ToolResultEvent) (abi.ToolResultPatch, error)) { toolResult = h }

// OnTurnEnd registers the turn_end observer.
func OnTurnEnd(h func(ev *abi.TurnEndEvent) error) { turnEnd = h }

// OnAgentEnd registers the agent_end observer.
func OnAgentEnd(h func(ev *abi.AgentEndEvent) error) { agentEnd = h }

// Tool registers the handler of the tool name, which the manifest
// declares (with its description and schema). Expected failures (nothing
// found, a bad query) should be results with IsError set, written for the
// model to read; a returned error becomes an error result too.
func Tool(name string, h func(ev *abi.ToolEvent) (abi.ToolResult, error)) { tools[name] = h }

// Allow lets a tool call go on unchanged.
func Allow() abi.ToolCallResult { return abi.ToolCallResult{} }

// Block refuses a tool call; reason is what the model is told.
func Block(reason string) abi.ToolCallResult {
	return abi.ToolCallResult{Block: true, Reason: reason}
}

// Replace changes a tool call's arguments to input (encoded as JSON).
func Replace(input any) (abi.ToolCallResult, error) {
	b, err := json.Marshal(input)
	if err != nil {
		return abi.ToolCallResult{}, wrap("encoding the replaced input", err)
	}
	return abi.ToolCallResult{Input: b}, nil
}

// Unchanged leaves a tool result as it is.
func Unchanged() abi.ToolResultPatch { return abi.ToolResultPatch{} }

// TextResult is a tool result holding one text part.
func TextResult(text string) abi.ToolResult {
	return abi.ToolResult{Content: []abi.ContentPart{{Type: "text", Text: text}}}
}

// ErrorResult is a failed tool result holding one text part, for the
// model to read.
func ErrorResult(text string) abi.ToolResult {
	r := TextResult(text)
	r.IsError = true
	return r
}

// ToolCallID returns the id of the call a tool_call or tool_result handler
// is looking at. Reading it makes the result depend on it, so pi cannot
// reuse it for another call: read it only when you need it.
func ToolCallID() string {
	s, err := fetchString(abi.KeyToolCallID)
	if err != nil {
		return ""
	}
	return s
}

// StringArg returns the string argument key of a tool call's input ("" when
// absent or not a string), decoding only that field's value (no
// encoding/json, which costs tens of microseconds inside a guest).
func StringArg(input json.RawMessage, key string) string {
	s, _ := abi.StringField(input, key)
	return s
}

func handleToolCall(ev *abi.ToolCallEvent) (abi.JSONAppender, error) {
	if toolCall == nil {
		return nil, missing(abi.HookToolCall)
	}
	return toolCall(ev)
}

func handleToolResult(ev *abi.ToolResultEvent) (abi.JSONAppender, error) {
	if toolResult == nil {
		return nil, missing(abi.HookToolResult)
	}
	return toolResult(ev)
}

func handleTurnEnd(ev *abi.TurnEndEvent) (abi.JSONAppender, error) {
	if turnEnd == nil {
		return nil, missing(abi.HookTurnEnd)
	}
	return abi.Observed{}, turnEnd(ev)
}

func handleAgentEnd(ev *abi.AgentEndEvent) (abi.JSONAppender, error) {
	if agentEnd == nil {
		return nil, missing(abi.HookAgentEnd)
	}
	return abi.Observed{}, agentEnd(ev)
}

func handleTool(ev *abi.ToolEvent) (abi.JSONAppender, error) {
	h, ok := tools[ev.ToolName]
	if !ok {
		return nil, errors.New("no handler for tool " + strconv.Quote(ev.ToolName) + " (register it with sdk.Tool)")
	}
	return h(ev)
}

var beforeCompact func(*abi.SessionBeforeCompactEvent) (abi.SessionBeforeCompactResult, error)

// OnSessionBeforeCompact registers the session_before_compact handler,
// called before pi summarises the older part of the session. Return
// KeepCompaction() to let pi write the summary, CancelCompaction() to
// stop it, or SupplySummary(text) to store your own summary instead.
func OnSessionBeforeCompact(h func(ev *abi.SessionBeforeCompactEvent) (abi.SessionBeforeCompactResult, error)) {
	beforeCompact = h
}

// KeepCompaction lets pi write the summary.
func KeepCompaction() abi.SessionBeforeCompactResult { return abi.SessionBeforeCompactResult{} }

// CancelCompaction stops this compaction.
func CancelCompaction() abi.SessionBeforeCompactResult {
	return abi.SessionBeforeCompactResult{Cancel: true}
}

// SupplySummary stores summary in place of pi's, keeping what pi chose to
// keep.
func SupplySummary(summary string) abi.SessionBeforeCompactResult {
	return abi.SessionBeforeCompactResult{Compaction: &abi.CompactionSummary{Summary: summary}}
}

func handleSessionBeforeCompact(ev *abi.SessionBeforeCompactEvent) (abi.JSONAppender, error) {
	if beforeCompact == nil {
		return nil, missing(abi.HookSessionBeforeCompact)
	}
	return beforeCompact(ev)
}

var onContext func(*abi.ContextEvent) (abi.ContextResult, error)

// OnContext registers the context handler, called before every model
// request with the conversation it will carry (no system prompt). Return
// KeepContext() to send it as it is, or ReplaceContext(messages) to send
// another list; the session file keeps the real conversation either way.
func OnContext(h func(ev *abi.ContextEvent) (abi.ContextResult, error)) { onContext = h }

// KeepContext sends the conversation unchanged.
func KeepContext() abi.ContextResult { return abi.ContextResult{} }

// ReplaceContext sends messages instead (the session's JSON form; no
// system messages).
func ReplaceContext(messages []json.RawMessage) abi.ContextResult {
	if messages == nil {
		messages = []json.RawMessage{}
	}
	return abi.ContextResult{Messages: messages}
}

func handleContext(ev *abi.ContextEvent) (abi.JSONAppender, error) {
	if onContext == nil {
		return nil, missing(abi.HookContext)
	}
	return onContext(ev)
}

var beforeProviderRequest func(*abi.BeforeProviderRequestEvent) (abi.BeforeProviderRequestResult, error)

// OnBeforeProviderRequest registers the before_provider_request handler,
// called with the body of each request before it is sent. Return
// KeepBody() to send it as it is, or SendBody(body) to send another (a
// JSON object). The API key is not in the body.
func OnBeforeProviderRequest(h func(ev *abi.BeforeProviderRequestEvent) (abi.BeforeProviderRequestResult, error)) {
	beforeProviderRequest = h
}

// KeepBody sends the body pi built.
func KeepBody() abi.BeforeProviderRequestResult { return abi.BeforeProviderRequestResult{} }

// SendBody sends body instead.
func SendBody(body json.RawMessage) abi.BeforeProviderRequestResult {
	return abi.BeforeProviderRequestResult{Body: body}
}

func handleBeforeProviderRequest(ev *abi.BeforeProviderRequestEvent) (abi.JSONAppender, error) {
	if beforeProviderRequest == nil {
		return nil, missing(abi.HookBeforeProviderRequest)
	}
	return beforeProviderRequest(ev)
}
