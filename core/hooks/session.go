package hooks

import (
	"context"
	"fmt"

	"github.com/piwasm/pi/abi"
)

// SessionHandler is implemented by handlers that can run the session
// life-cycle hooks (session_start, session_shutdown, session_before_switch,
// session_before_fork).
type SessionHandler interface {
	SessionStart(ctx context.Context, ev abi.SessionStartEvent, fetch Fetcher) error
	SessionShutdown(ctx context.Context, ev abi.SessionShutdownEvent, fetch Fetcher) error
	SessionBeforeSwitch(ctx context.Context, ev abi.SessionBeforeSwitchEvent, fetch Fetcher) (abi.SessionCancelResult, error)
	SessionBeforeFork(ctx context.Context, ev abi.SessionBeforeForkEvent, fetch Fetcher) (abi.SessionBeforeForkResult, error)
}

func errNoSessionHooks(hook string) error {
	return fmt.Errorf("the extension declares %s but its handler cannot run it", hook)
}

// SessionStart tells every handler that declares session_start that a
// session opened. It only observes: a handler that fails is reported as a
// diagnostic and the others still run, whatever its policy (the session
// is already open, there is nothing to stop).
func (d *Dispatcher) SessionStart(ctx context.Context, ev abi.SessionStartEvent) {
	d.observeAll(abi.HookSessionStart, func(sh SessionHandler) error { return sh.SessionStart(ctx, ev, nil) })
}

// SessionShutdown tells every handler that declares session_shutdown that
// pi leaves the session. Like SessionStart it only observes; each call is
// bounded by the extension's own timeout, so it never holds up an exit
// for longer.
func (d *Dispatcher) SessionShutdown(ctx context.Context, ev abi.SessionShutdownEvent) {
	d.observeAll(abi.HookSessionShutdown, func(sh SessionHandler) error { return sh.SessionShutdown(ctx, ev, nil) })
}

func (d *Dispatcher) observeAll(hook string, call func(SessionHandler) error) {
	if d == nil {
		return
	}
	for _, h := range d.handlers {
		if !h.Handles(hook) {
			continue
		}
		err := errNoSessionHooks(hook)
		if sh, ok := h.(SessionHandler); ok {
			err = call(sh)
		}
		if err != nil {
			d.observeFailed(h, hook, err)
		}
	}
}

// SessionBeforeSwitch asks every handler that declares
// session_before_switch, in order, until one cancels; it returns whether
// the switch is cancelled and by whom. A handler that fails is skipped
// with a diagnostic (the switch goes on); with the abort policy the
// failure is an *AbortError and the switch does not happen.
func (d *Dispatcher) SessionBeforeSwitch(ctx context.Context, ev abi.SessionBeforeSwitchEvent) (bool, string, error) {
	return d.beforeChange(abi.HookSessionBeforeSwitch, func(sh SessionHandler) (bool, error) {
		res, err := sh.SessionBeforeSwitch(ctx, ev, nil)
		return res.Cancel, err
	})
}

// SessionBeforeFork is SessionBeforeSwitch for /fork and /clone.
func (d *Dispatcher) SessionBeforeFork(ctx context.Context, ev abi.SessionBeforeForkEvent) (bool, string, error) {
	if err := ev.Check(); err != nil {
		return false, "", err
	}
	return d.beforeChange(abi.HookSessionBeforeFork, func(sh SessionHandler) (bool, error) {
		res, err := sh.SessionBeforeFork(ctx, ev, nil)
		return res.Cancel, err
	})
}

func (d *Dispatcher) beforeChange(hook string, call func(SessionHandler) (bool, error)) (bool, string, error) {
	if d == nil {
		return false, "", nil
	}
	for _, h := range d.handlers {
		if !h.Handles(hook) {
			continue
		}
		cancel, err := false, errNoSessionHooks(hook)
		if sh, ok := h.(SessionHandler); ok {
			cancel, err = call(sh)
		}
		if err != nil {
			if h.FailurePolicy() == PolicyAbort {
				return false, h.Name(), &AbortError{Extension: h.Name(), Hook: hook, Err: err}
			}
			d.observeFailed(h, hook, err)
			continue
		}
		if cancel {
			return true, h.Name(), nil
		}
	}
	return false, "", nil
}

// HasSessionHooks reports whether any handler declares hook, so a caller
// can skip building its event.
func (d *Dispatcher) HasSessionHooks(hook string) bool {
	if d == nil {
		return false
	}
	for _, h := range d.handlers {
		if h.Handles(hook) {
			return true
		}
	}
	return false
}

// The session hooks are never memoised: each runs once per session change
// and what it observes (a session opening or closing) is an effect, not a
// value to reuse.

func (h *memoHandler) session() (SessionHandler, bool) {
	sh, ok := h.Handler.(SessionHandler)
	return sh, ok
}

func (h *memoHandler) SessionStart(ctx context.Context, ev abi.SessionStartEvent, fetch Fetcher) error {
	sh, ok := h.session()
	if !ok {
		return errNoSessionHooks(abi.HookSessionStart)
	}
	return sh.SessionStart(ctx, ev, fetch)
}

func (h *memoHandler) SessionShutdown(ctx context.Context, ev abi.SessionShutdownEvent, fetch Fetcher) error {
	sh, ok := h.session()
	if !ok {
		return errNoSessionHooks(abi.HookSessionShutdown)
	}
	return sh.SessionShutdown(ctx, ev, fetch)
}

func (h *memoHandler) SessionBeforeSwitch(ctx context.Context, ev abi.SessionBeforeSwitchEvent, fetch Fetcher) (abi.SessionCancelResult, error) {
	sh, ok := h.session()
	if !ok {
		return abi.SessionCancelResult{}, errNoSessionHooks(abi.HookSessionBeforeSwitch)
	}
	return sh.SessionBeforeSwitch(ctx, ev, fetch)
}

func (h *memoHandler) SessionBeforeFork(ctx context.Context, ev abi.SessionBeforeForkEvent, fetch Fetcher) (abi.SessionBeforeForkResult, error) {
	sh, ok := h.session()
	if !ok {
		return abi.SessionBeforeForkResult{}, errNoSessionHooks(abi.HookSessionBeforeFork)
	}
	return sh.SessionBeforeFork(ctx, ev, fetch)
}
