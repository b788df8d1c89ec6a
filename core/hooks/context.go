package hooks

import (
	"context"
	"fmt"

	"github.com/piwasm/pi/abi"
)

// ContextHandler is implemented by handlers that can run context.
type ContextHandler interface {
	Context(ctx context.Context, ev abi.ContextEvent, fetch Fetcher) (abi.ContextResult, error)
}

// Context runs every handler that declares context, in order, each on the
// list the one before it returned. A handler that fails or answers
// something invalid is skipped with a diagnostic (the list goes on as it
// was); with the abort policy the failure is an *AbortError and the
// request is not sent. changed is false when every handler left the list.
func (d *Dispatcher) Context(ctx context.Context, ev abi.ContextEvent) (abi.ContextEvent, bool, error) {
	changed := false
	for _, h := range d.handlers {
		if !h.Handles(abi.HookContext) {
			continue
		}
		ch, ok := h.(ContextHandler)
		var res abi.ContextResult
		err := fmt.Errorf("the extension declares %s but its handler cannot run it", abi.HookContext)
		if ok {
			res, err = ch.Context(ctx, ev, nil)
			if err == nil {
				if cerr := res.Check(); cerr != nil {
					err = fmt.Errorf("%w: %v", ErrInvalidResult, cerr)
				}
			}
		}
		if err != nil {
			if h.FailurePolicy() == PolicyAbort {
				return ev, false, &AbortError{Extension: h.Name(), Hook: abi.HookContext, Err: err}
			}
			d.observeFailed(h, abi.HookContext, err)
			continue
		}
		if res.Messages != nil {
			ev.Messages, changed = res.Messages, true
		}
	}
	return ev, changed, nil
}

// HasContextHooks reports whether any handler declares context, so a
// caller can skip encoding the conversation.
func (d *Dispatcher) HasContextHooks() bool {
	if d == nil {
		return false
	}
	for _, h := range d.handlers {
		if h.Handles(abi.HookContext) {
			return true
		}
	}
	return false
}

// Context is never memoised: its event is the whole conversation, new at
// every request.
func (h *memoHandler) Context(ctx context.Context, ev abi.ContextEvent, fetch Fetcher) (abi.ContextResult, error) {
	ch, ok := h.Handler.(ContextHandler)
	if !ok {
		return abi.ContextResult{}, fmt.Errorf("the extension declares %s but its handler cannot run it", abi.HookContext)
	}
	return ch.Context(ctx, ev, fetch)
}
