package hooks

import (
	"context"
	"fmt"

	"github.com/piwasm/pi/abi"
)

// ProviderRequestHandler is implemented by handlers that can run
// before_provider_request.
type ProviderRequestHandler interface {
	BeforeProviderRequest(ctx context.Context, ev abi.BeforeProviderRequestEvent, fetch Fetcher) (abi.BeforeProviderRequestResult, error)
}

// BeforeProviderRequest runs every handler that declares
// before_provider_request, in order, each on the body the one before
// returned. A handler that fails or answers something that is not a JSON
// object is skipped with a diagnostic; with the abort policy the failure
// is an *AbortError and the request is not sent. changed is false when
// every handler kept the body.
func (d *Dispatcher) BeforeProviderRequest(ctx context.Context, ev abi.BeforeProviderRequestEvent) (abi.BeforeProviderRequestEvent, bool, error) {
	changed := false
	for _, h := range d.handlers {
		if !h.Handles(abi.HookBeforeProviderRequest) {
			continue
		}
		ph, ok := h.(ProviderRequestHandler)
		var res abi.BeforeProviderRequestResult
		err := fmt.Errorf("the extension declares %s but its handler cannot run it", abi.HookBeforeProviderRequest)
		if ok {
			res, err = ph.BeforeProviderRequest(ctx, ev, nil)
			if err == nil {
				if cerr := res.Check(); cerr != nil {
					err = fmt.Errorf("%w: %v", ErrInvalidResult, cerr)
				}
			}
		}
		if err != nil {
			if h.FailurePolicy() == PolicyAbort {
				return ev, false, &AbortError{Extension: h.Name(), Hook: abi.HookBeforeProviderRequest, Err: err}
			}
			d.observeFailed(h, abi.HookBeforeProviderRequest, err)
			continue
		}
		if res.Body != nil {
			ev.Body, changed = res.Body, true
		}
	}
	return ev, changed, nil
}

// HasProviderRequestHooks reports whether any handler declares
// before_provider_request, so a caller can leave the body unserialised.
func (d *Dispatcher) HasProviderRequestHooks() bool {
	if d == nil {
		return false
	}
	for _, h := range d.handlers {
		if h.Handles(abi.HookBeforeProviderRequest) {
			return true
		}
	}
	return false
}

// BeforeProviderRequest is never memoised: the body is new at every
// request.
func (h *memoHandler) BeforeProviderRequest(ctx context.Context, ev abi.BeforeProviderRequestEvent, fetch Fetcher) (abi.BeforeProviderRequestResult, error) {
	ph, ok := h.Handler.(ProviderRequestHandler)
	if !ok {
		return abi.BeforeProviderRequestResult{}, fmt.Errorf("the extension declares %s but its handler cannot run it", abi.HookBeforeProviderRequest)
	}
	return ph.BeforeProviderRequest(ctx, ev, fetch)
}
