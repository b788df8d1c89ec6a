package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/piwasm/pi/abi"
)

// ToolHandler is implemented by handlers that take part in the agent loop.
// The dispatcher calls a method only when the handler declares its hook.
type ToolHandler interface {
	ToolCall(ctx context.Context, ev abi.ToolCallEvent, fetch Fetcher) (abi.ToolCallResult, error)
	ToolResult(ctx context.Context, ev abi.ToolResultEvent, fetch Fetcher) (abi.ToolResultPatch, error)
	TurnEnd(ctx context.Context, ev abi.TurnEndEvent, fetch Fetcher) error
	AgentEnd(ctx context.Context, ev abi.AgentEndEvent, fetch Fetcher) error
}

// errNoToolHooks reports a handler that declares a loop hook but cannot
// run it; it fails like any other call, by the handler's policy.
var errNoToolHooks = errors.New("the extension declares the hook but its handler cannot run loop hooks")

// ToolVerdict is what the tool_call chain decided about one call.
type ToolVerdict struct {
	// Block refuses the call; Reason says why and Extension who.
	Block  bool
	Reason string
	// Extension is the extension that blocked the call, or the last one
	// that replaced its input.
	Extension string
	// Input, when non-nil, replaces the call's arguments (already checked
	// by the validate function given to ToolCall).
	Input json.RawMessage
}

// Validate checks replaced arguments against the tool's schema and returns
// them as the tool will receive them (coerced). A nil Validate accepts any
// JSON object.
type Validate func(input json.RawMessage) (json.RawMessage, error)

// ToolCall runs the tool_call chain in load order. Each handler sees the
// arguments as earlier ones left them; the first block wins and ends the
// chain. A replacement must be a JSON object that validate accepts,
// otherwise it counts as a failure of the handler. A failing handler whose
// policy is abort blocks the call: ToolCall returns an *AbortError naming
// it, and the caller must not run the call. A failing skip handler is
// passed over with a diagnostic, its replacement (if any) discarded.
//
// A handler whose policy is abort is a policy: what runs must be what it
// approved. When a later handler replaces the arguments, every abort
// handler that approved other arguments is asked again, in load order,
// with the final ones, until they all approved what will run; arguments
// that keep changing after maxRechecks rounds are refused.
//
// The tool call's id is not part of the event: it is served under
// abi.KeyToolCallID, so that a pure guest that never reads it can be
// memoised across calls.
func (d *Dispatcher) ToolCall(ctx context.Context, ev abi.ToolCallEvent, callID string, validate Validate) (ToolVerdict, error) {
	var v ToolVerdict
	fetch := callFetcher(callID)
	ev.ToolCallID = ""
	// approved holds, for each abort handler that let the call through,
	// the arguments it let through.
	approved := map[int]json.RawMessage{} // by index in d.handlers
	var policies []int
	// ask runs handler i on ev; done reports a final verdict.
	ask := func(i int) (done bool, err error) {
		h := d.handlers[i]
		res, err := toolCall(ctx, h, ev, fetch)
		if err == nil {
			if res.Block {
				reason := res.Reason
				if reason == "" {
					reason = "refused by policy"
				}
				v = ToolVerdict{Block: true, Reason: reason, Extension: h.Name()}
				return true, nil
			}
			if res.Input != nil {
				var in json.RawMessage
				if in, err = checkInput(res.Input, validate); err == nil {
					ev.Input, v.Input, v.Extension = in, in, h.Name()
				}
			}
		}
		if err != nil {
			return false, d.fail(h, abi.HookToolCall, err)
		}
		if h.FailurePolicy() == PolicyAbort {
			approved[i] = ev.Input
		}
		return false, nil
	}
	for i, h := range d.handlers {
		if !h.Handles(abi.HookToolCall) {
			continue
		}
		if h.FailurePolicy() == PolicyAbort {
			policies = append(policies, i)
		}
		if done, err := ask(i); done || err != nil {
			return v, err
		}
	}
	for round := 0; v.Input != nil; round++ {
		stale := false
		for _, i := range policies {
			if bytes.Equal(approved[i], ev.Input) {
				continue
			}
			if round == maxRechecks {
				name := d.handlers[i].Name()
				return ToolVerdict{Block: true, Extension: name, Reason: fmt.Sprintf("the extensions kept changing this call's arguments, so %s could not approve the arguments that would run", name)}, nil
			}
			stale = true
			if done, err := ask(i); done || err != nil {
				return v, err
			}
		}
		if !stale {
			break
		}
	}
	return v, nil
}

// maxRechecks bounds the rounds in which abort handlers are asked again
// about arguments a later handler changed.
const maxRechecks = 4

func toolCall(ctx context.Context, h Handler, ev abi.ToolCallEvent, fetch Fetcher) (abi.ToolCallResult, error) {
	th, ok := h.(ToolHandler)
	if !ok {
		return abi.ToolCallResult{}, errNoToolHooks
	}
	return th.ToolCall(ctx, ev, fetch)
}

// checkInput accepts a replacement only if it is one JSON object that the
// tool's schema validates.
func checkInput(in json.RawMessage, validate Validate) (json.RawMessage, error) {
	trimmed := bytes.TrimSpace(in)
	if len(trimmed) == 0 || trimmed[0] != '{' || !json.Valid(trimmed) {
		return nil, fmt.Errorf("%w: the replaced input must be a JSON object, got %.80q", ErrInvalidResult, in)
	}
	if validate == nil {
		return json.RawMessage(trimmed), nil
	}
	out, err := validate(json.RawMessage(trimmed))
	if err != nil {
		return nil, fmt.Errorf("%w: the replaced input does not fit the tool: %v", ErrInvalidResult, err)
	}
	return out, nil
}

// callFetcher serves the call's id under abi.KeyToolCallID.
func callFetcher(id string) Fetcher {
	return func(key string) ([]byte, bool) {
		if key == abi.KeyToolCallID {
			return []byte(id), true
		}
		return nil, false
	}
}

// ToolResult runs the tool_result chain in load order: each handler sees
// the result as earlier ones patched it. A failing handler whose policy is
// abort withholds the result (an *AbortError); a failing skip handler is
// passed over with a diagnostic. The result keeps the event's fields; only
// Content and IsError change.
func (d *Dispatcher) ToolResult(ctx context.Context, ev abi.ToolResultEvent, callID string) (abi.ToolResultEvent, error) {
	fetch := callFetcher(callID)
	ev.ToolCallID = ""
	for _, h := range d.handlers {
		if !h.Handles(abi.HookToolResult) {
			continue
		}
		var p abi.ToolResultPatch
		th, ok := h.(ToolHandler)
		err := errNoToolHooks
		if ok {
			p, err = th.ToolResult(ctx, ev, fetch)
		}
		if err == nil {
			err = checkParts(p.Content)
		}
		if err == nil {
			if p.Content != nil {
				ev.Content = p.Content
			}
			if p.IsError != nil {
				ev.IsError = *p.IsError
			}
			continue
		}
		if ferr := d.fail(h, abi.HookToolResult, err); ferr != nil {
			return abi.ToolResultEvent{}, ferr
		}
	}
	ev.ToolCallID = callID
	return ev, nil
}

// checkParts accepts text parts and image parts with data and a type.
func checkParts(parts []abi.ContentPart) error {
	for i, p := range parts {
		switch p.Type {
		case "text":
			if p.Data != "" || p.MimeType != "" {
				return fmt.Errorf("%w: content[%d]: a text part has no data or mimeType", ErrInvalidResult, i)
			}
		case "image":
			if p.Data == "" || p.MimeType == "" || p.Text != "" {
				return fmt.Errorf("%w: content[%d]: an image part needs data and mimeType and no text", ErrInvalidResult, i)
			}
		default:
			return fmt.Errorf("%w: content[%d]: unknown part type %q (want text or image)", ErrInvalidResult, i, p.Type)
		}
	}
	return nil
}

// TurnEnd tells every handler that declares turn_end. The hook observes
// only: a failure is a diagnostic whatever the handler's policy, since
// nothing is left to refuse.
func (d *Dispatcher) TurnEnd(ctx context.Context, ev abi.TurnEndEvent) {
	for _, h := range d.handlers {
		if !h.Handles(abi.HookTurnEnd) {
			continue
		}
		th, ok := h.(ToolHandler)
		err := errNoToolHooks
		if ok {
			err = th.TurnEnd(ctx, ev, nil)
		}
		if err != nil {
			d.observeFailed(h, abi.HookTurnEnd, err)
		}
	}
}

// AgentEnd tells every handler that declares agent_end (observe only, as
// TurnEnd).
func (d *Dispatcher) AgentEnd(ctx context.Context, ev abi.AgentEndEvent) {
	for _, h := range d.handlers {
		if !h.Handles(abi.HookAgentEnd) {
			continue
		}
		th, ok := h.(ToolHandler)
		err := errNoToolHooks
		if ok {
			err = th.AgentEnd(ctx, ev, nil)
		}
		if err != nil {
			d.observeFailed(h, abi.HookAgentEnd, err)
		}
	}
}

func (d *Dispatcher) observeFailed(h Handler, hook string, err error) {
	d.record(h, hook, err, fmt.Sprintf("extension %s failed in %s: %v", h.Name(), hook, err))
}

// HasToolHooks reports whether any handler declares tool_call or
// tool_result, so a caller can skip encoding events nobody reads.
func (d *Dispatcher) HasToolHooks() bool {
	for _, h := range d.handlers {
		for _, hook := range []string{abi.HookToolCall, abi.HookToolResult, abi.HookTurnEnd, abi.HookAgentEnd} {
			if h.Handles(hook) {
				return true
			}
		}
	}
	return false
}
