package host

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/piwasm/pi/abi"
	"github.com/piwasm/pi/core/hooks"
)

// ToolCall calls the tool_call hook. The dispatcher checks a replaced
// input against the tool's schema.
func (e *Extension) ToolCall(ctx context.Context, ev abi.ToolCallEvent, fetch hooks.Fetcher) (abi.ToolCallResult, error) {
	var res abi.ToolCallResult
	raw, err := plainJSON(ev)
	if err != nil {
		return res, e.callErr(abi.HookToolCall, CauseUnavailable, err)
	}
	err = e.hook(ctx, abi.HookToolCall, raw, fetch, &res)
	return res, err
}

// ToolResult calls the tool_result hook.
func (e *Extension) ToolResult(ctx context.Context, ev abi.ToolResultEvent, fetch hooks.Fetcher) (abi.ToolResultPatch, error) {
	var res abi.ToolResultPatch
	raw, err := plainJSON(ev)
	if err != nil {
		return res, e.callErr(abi.HookToolResult, CauseUnavailable, err)
	}
	err = e.hook(ctx, abi.HookToolResult, raw, fetch, &res)
	return res, err
}

// plainJSON encodes v without encoding/json's HTML escaping: shell
// commands and tool output are full of &, < and >, and every \u0026 is a
// detour through the slow path of the guest's string decoder (about 10 µs
// per tool_call event measured on a command with "&&").
func plainJSON(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encoding event: %w", err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// TurnEnd calls the turn_end hook (its result is ignored).
func (e *Extension) TurnEnd(ctx context.Context, ev abi.TurnEndEvent, fetch hooks.Fetcher) error {
	return e.hook(ctx, abi.HookTurnEnd, ev, fetch, nil)
}

// AgentEnd calls the agent_end hook (its result is ignored).
func (e *Extension) AgentEnd(ctx context.Context, ev abi.AgentEndEvent, fetch hooks.Fetcher) error {
	return e.hook(ctx, abi.HookAgentEnd, ev, fetch, nil)
}

func (h handler) ToolCall(ctx context.Context, ev abi.ToolCallEvent, fetch hooks.Fetcher) (abi.ToolCallResult, error) {
	return h.e.ToolCall(ctx, ev, hooks.Fetcher(fetch))
}

func (h handler) ToolResult(ctx context.Context, ev abi.ToolResultEvent, fetch hooks.Fetcher) (abi.ToolResultPatch, error) {
	return h.e.ToolResult(ctx, ev, hooks.Fetcher(fetch))
}

func (h handler) TurnEnd(ctx context.Context, ev abi.TurnEndEvent, fetch hooks.Fetcher) error {
	return h.e.TurnEnd(ctx, ev, hooks.Fetcher(fetch))
}

func (h handler) AgentEnd(ctx context.Context, ev abi.AgentEndEvent, fetch hooks.Fetcher) error {
	return h.e.AgentEnd(ctx, ev, hooks.Fetcher(fetch))
}

// toolHooks is the loop-hook side of whatever fileServer wraps (the memo
// layer or the plain handler).
func (f fileServer) toolHooks() (hooks.ToolHandler, bool) {
	th, ok := f.Handler.(hooks.ToolHandler)
	return th, ok
}

func (f fileServer) ToolCall(ctx context.Context, ev abi.ToolCallEvent, fetch hooks.Fetcher) (abi.ToolCallResult, error) {
	th, ok := f.toolHooks()
	if !ok {
		return abi.ToolCallResult{}, f.e.callErr(abi.HookToolCall, CauseUnavailable, nil)
	}
	return th.ToolCall(ctx, ev, f.serve(fetch))
}

func (f fileServer) ToolResult(ctx context.Context, ev abi.ToolResultEvent, fetch hooks.Fetcher) (abi.ToolResultPatch, error) {
	th, ok := f.toolHooks()
	if !ok {
		return abi.ToolResultPatch{}, f.e.callErr(abi.HookToolResult, CauseUnavailable, nil)
	}
	return th.ToolResult(ctx, ev, f.serve(fetch))
}

func (f fileServer) TurnEnd(ctx context.Context, ev abi.TurnEndEvent, fetch hooks.Fetcher) error {
	th, ok := f.toolHooks()
	if !ok {
		return f.e.callErr(abi.HookTurnEnd, CauseUnavailable, nil)
	}
	return th.TurnEnd(ctx, ev, f.serve(fetch))
}

func (f fileServer) AgentEnd(ctx context.Context, ev abi.AgentEndEvent, fetch hooks.Fetcher) error {
	th, ok := f.toolHooks()
	if !ok {
		return f.e.callErr(abi.HookAgentEnd, CauseUnavailable, nil)
	}
	return th.AgentEnd(ctx, ev, f.serve(fetch))
}

// SessionBeforeCompact calls the session_before_compact hook.
func (e *Extension) SessionBeforeCompact(ctx context.Context, ev abi.SessionBeforeCompactEvent, fetch hooks.Fetcher) (abi.SessionBeforeCompactResult, error) {
	return plainHook[abi.SessionBeforeCompactResult](ctx, e, abi.HookSessionBeforeCompact, ev, fetch)
}

func (h handler) SessionBeforeCompact(ctx context.Context, ev abi.SessionBeforeCompactEvent, fetch hooks.Fetcher) (abi.SessionBeforeCompactResult, error) {
	return h.e.SessionBeforeCompact(ctx, ev, hooks.Fetcher(fetch))
}

func (f fileServer) SessionBeforeCompact(ctx context.Context, ev abi.SessionBeforeCompactEvent, fetch hooks.Fetcher) (abi.SessionBeforeCompactResult, error) {
	ch, ok := f.Handler.(hooks.CompactHandler)
	if !ok {
		return abi.SessionBeforeCompactResult{}, f.e.callErr(abi.HookSessionBeforeCompact, CauseUnavailable, nil)
	}
	return ch.SessionBeforeCompact(ctx, ev, f.serve(fetch))
}

// Context calls the context hook.
func (e *Extension) Context(ctx context.Context, ev abi.ContextEvent, fetch hooks.Fetcher) (abi.ContextResult, error) {
	return plainHook[abi.ContextResult](ctx, e, abi.HookContext, ev, fetch)
}

func (h handler) Context(ctx context.Context, ev abi.ContextEvent, fetch hooks.Fetcher) (abi.ContextResult, error) {
	return h.e.Context(ctx, ev, hooks.Fetcher(fetch))
}

func (f fileServer) Context(ctx context.Context, ev abi.ContextEvent, fetch hooks.Fetcher) (abi.ContextResult, error) {
	ch, ok := f.Handler.(hooks.ContextHandler)
	if !ok {
		return abi.ContextResult{}, f.e.callErr(abi.HookContext, CauseUnavailable, nil)
	}
	return ch.Context(ctx, ev, f.serve(fetch))
}

// BeforeProviderRequest calls the before_provider_request hook.
func (e *Extension) BeforeProviderRequest(ctx context.Context, ev abi.BeforeProviderRequestEvent, fetch hooks.Fetcher) (abi.BeforeProviderRequestResult, error) {
	return plainHook[abi.BeforeProviderRequestResult](ctx, e, abi.HookBeforeProviderRequest, ev, fetch)
}

func (h handler) BeforeProviderRequest(ctx context.Context, ev abi.BeforeProviderRequestEvent, fetch hooks.Fetcher) (abi.BeforeProviderRequestResult, error) {
	return h.e.BeforeProviderRequest(ctx, ev, hooks.Fetcher(fetch))
}

func (f fileServer) BeforeProviderRequest(ctx context.Context, ev abi.BeforeProviderRequestEvent, fetch hooks.Fetcher) (abi.BeforeProviderRequestResult, error) {
	ph, ok := f.Handler.(hooks.ProviderRequestHandler)
	if !ok {
		return abi.BeforeProviderRequestResult{}, f.e.callErr(abi.HookBeforeProviderRequest, CauseUnavailable, nil)
	}
	return ph.BeforeProviderRequest(ctx, ev, f.serve(fetch))
}

// SessionStart calls the session_start hook.
func (e *Extension) SessionStart(ctx context.Context, ev abi.SessionStartEvent, fetch hooks.Fetcher) error {
	return e.hook(ctx, abi.HookSessionStart, ev, fetch, nil)
}

// SessionShutdown calls the session_shutdown hook.
func (e *Extension) SessionShutdown(ctx context.Context, ev abi.SessionShutdownEvent, fetch hooks.Fetcher) error {
	return e.hook(ctx, abi.HookSessionShutdown, ev, fetch, nil)
}

// SessionBeforeSwitch calls the session_before_switch hook.
func (e *Extension) SessionBeforeSwitch(ctx context.Context, ev abi.SessionBeforeSwitchEvent, fetch hooks.Fetcher) (abi.SessionCancelResult, error) {
	var res abi.SessionCancelResult
	err := e.hook(ctx, abi.HookSessionBeforeSwitch, ev, fetch, &res)
	return res, err
}

// SessionBeforeFork calls the session_before_fork hook.
func (e *Extension) SessionBeforeFork(ctx context.Context, ev abi.SessionBeforeForkEvent, fetch hooks.Fetcher) (abi.SessionBeforeForkResult, error) {
	var res abi.SessionBeforeForkResult
	err := e.hook(ctx, abi.HookSessionBeforeFork, ev, fetch, &res)
	return res, err
}

func (h handler) SessionStart(ctx context.Context, ev abi.SessionStartEvent, fetch hooks.Fetcher) error {
	return h.e.SessionStart(ctx, ev, fetch)
}

func (h handler) SessionShutdown(ctx context.Context, ev abi.SessionShutdownEvent, fetch hooks.Fetcher) error {
	return h.e.SessionShutdown(ctx, ev, fetch)
}

func (h handler) SessionBeforeSwitch(ctx context.Context, ev abi.SessionBeforeSwitchEvent, fetch hooks.Fetcher) (abi.SessionCancelResult, error) {
	return h.e.SessionBeforeSwitch(ctx, ev, fetch)
}

func (h handler) SessionBeforeFork(ctx context.Context, ev abi.SessionBeforeForkEvent, fetch hooks.Fetcher) (abi.SessionBeforeForkResult, error) {
	return h.e.SessionBeforeFork(ctx, ev, fetch)
}

func (f fileServer) session() (hooks.SessionHandler, error) {
	sh, ok := f.Handler.(hooks.SessionHandler)
	if !ok {
		return nil, f.e.callErr(abi.HookSessionStart, CauseUnavailable, nil)
	}
	return sh, nil
}

func (f fileServer) SessionStart(ctx context.Context, ev abi.SessionStartEvent, fetch hooks.Fetcher) error {
	sh, err := f.session()
	if err != nil {
		return err
	}
	return sh.SessionStart(ctx, ev, f.serve(fetch))
}

func (f fileServer) SessionShutdown(ctx context.Context, ev abi.SessionShutdownEvent, fetch hooks.Fetcher) error {
	sh, err := f.session()
	if err != nil {
		return err
	}
	return sh.SessionShutdown(ctx, ev, f.serve(fetch))
}

func (f fileServer) SessionBeforeSwitch(ctx context.Context, ev abi.SessionBeforeSwitchEvent, fetch hooks.Fetcher) (abi.SessionCancelResult, error) {
	sh, err := f.session()
	if err != nil {
		return abi.SessionCancelResult{}, err
	}
	return sh.SessionBeforeSwitch(ctx, ev, f.serve(fetch))
}

func (f fileServer) SessionBeforeFork(ctx context.Context, ev abi.SessionBeforeForkEvent, fetch hooks.Fetcher) (abi.SessionBeforeForkResult, error) {
	sh, err := f.session()
	if err != nil {
		return abi.SessionBeforeForkResult{}, err
	}
	return sh.SessionBeforeFork(ctx, ev, f.serve(fetch))
}

// plainHook calls hook with ev encoded by encoding/json without HTML
// escaping (the once-per-request hooks whose events carry conversation
// text), decoding the result into an R.
func plainHook[R any](ctx context.Context, e *Extension, hook string, ev any, fetch hooks.Fetcher) (R, error) {
	var res R
	raw, err := plainJSON(ev)
	if err != nil {
		return res, e.callErr(hook, CauseUnavailable, err)
	}
	err = e.hook(ctx, hook, raw, fetch, &res)
	return res, err
}
