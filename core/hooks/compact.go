package hooks

import (
	"context"
	"fmt"

	"github.com/piwasm/pi/abi"
)

// CompactHandler is implemented by handlers that can run
// session_before_compact.
type CompactHandler interface {
	SessionBeforeCompact(ctx context.Context, ev abi.SessionBeforeCompactEvent, fetch Fetcher) (abi.SessionBeforeCompactResult, error)
}

// SessionBeforeCompact asks every handler that declares
// session_before_compact, in order, until one cancels the compaction or
// supplies the summary. A handler that fails (or answers something
// invalid) is skipped with a diagnostic, so pi writes the summary itself;
// with the abort policy the failure is an *AbortError and the compaction
// does not happen.
func (d *Dispatcher) SessionBeforeCompact(ctx context.Context, ev abi.SessionBeforeCompactEvent) (abi.SessionBeforeCompactResult, string, error) {
	for _, h := range d.handlers {
		if !h.Handles(abi.HookSessionBeforeCompact) {
			continue
		}
		ch, ok := h.(CompactHandler)
		var res abi.SessionBeforeCompactResult
		err := fmt.Errorf("the extension declares %s but its handler cannot run it", abi.HookSessionBeforeCompact)
		if ok {
			res, err = ch.SessionBeforeCompact(ctx, ev, nil)
			if err == nil {
				if cerr := res.Check(); cerr != nil {
					err = fmt.Errorf("%w: %v", ErrInvalidResult, cerr)
				}
			}
		}
		if err != nil {
			if h.FailurePolicy() == PolicyAbort {
				return abi.SessionBeforeCompactResult{}, h.Name(), &AbortError{Extension: h.Name(), Hook: abi.HookSessionBeforeCompact, Err: err}
			}
			d.observeFailed(h, abi.HookSessionBeforeCompact, err)
			continue
		}
		if res.Cancel || res.Compaction != nil {
			return res, h.Name(), nil
		}
	}
	return abi.SessionBeforeCompactResult{}, "", nil
}

// HasCompactHooks reports whether any handler declares
// session_before_compact, so a caller can skip building its event.
func (d *Dispatcher) HasCompactHooks() bool {
	if d == nil {
		return false
	}
	for _, h := range d.handlers {
		if h.Handles(abi.HookSessionBeforeCompact) {
			return true
		}
	}
	return false
}

// SessionBeforeCompact is never memoised: it runs once per compaction and
// its event (the conversation to summarise) is always new.
func (h *memoHandler) SessionBeforeCompact(ctx context.Context, ev abi.SessionBeforeCompactEvent, fetch Fetcher) (abi.SessionBeforeCompactResult, error) {
	ch, ok := h.Handler.(CompactHandler)
	if !ok {
		return abi.SessionBeforeCompactResult{}, fmt.Errorf("the extension declares %s but its handler cannot run it", abi.HookSessionBeforeCompact)
	}
	return ch.SessionBeforeCompact(ctx, ev, fetch)
}
