package hooks

import (
	"context"

	"github.com/piwasm/pi/abi"
)

// The loop hooks go through the memo layer like the prompt hooks: a pure
// guest's verdict on a call is a function of the event, what it fetched
// (the call's id only if it asked for it) and the calls it answered
// before.

func (h *memoHandler) inner() (ToolHandler, error) {
	th, ok := h.Handler.(ToolHandler)
	if !ok {
		return nil, errNoToolHooks
	}
	return th, nil
}

func (h *memoHandler) ToolCall(ctx context.Context, ev abi.ToolCallEvent, fetch Fetcher) (abi.ToolCallResult, error) {
	th, err := h.inner()
	if err != nil {
		return abi.ToolCallResult{}, err
	}
	return memoCall(h, abi.HookToolCall, ev, fetch, func(f Fetcher) (abi.ToolCallResult, error) {
		return th.ToolCall(ctx, ev, f)
	}, always[abi.ToolCallResult])
}

func (h *memoHandler) ToolResult(ctx context.Context, ev abi.ToolResultEvent, fetch Fetcher) (abi.ToolResultPatch, error) {
	th, err := h.inner()
	if err != nil {
		return abi.ToolResultPatch{}, err
	}
	return memoCall(h, abi.HookToolResult, ev, fetch, func(f Fetcher) (abi.ToolResultPatch, error) {
		return th.ToolResult(ctx, ev, f)
	}, always[abi.ToolResultPatch])
}

func (h *memoHandler) TurnEnd(ctx context.Context, ev abi.TurnEndEvent, fetch Fetcher) error {
	th, err := h.inner()
	if err != nil {
		return err
	}
	_, err = memoCall(h, abi.HookTurnEnd, ev, fetch, func(f Fetcher) (abi.Observed, error) {
		return abi.Observed{}, th.TurnEnd(ctx, ev, f)
	}, always[abi.Observed])
	return err
}

func (h *memoHandler) AgentEnd(ctx context.Context, ev abi.AgentEndEvent, fetch Fetcher) error {
	th, err := h.inner()
	if err != nil {
		return err
	}
	_, err = memoCall(h, abi.HookAgentEnd, ev, fetch, func(f Fetcher) (abi.Observed, error) {
		return abi.Observed{}, th.AgentEnd(ctx, ev, f)
	}, always[abi.Observed])
	return err
}
