package main

import (
	"context"
	"fmt"
	"sync"

	"github.com/piwasm/pi/abi"
	"github.com/piwasm/pi/core/hooks"
	"github.com/piwasm/pi/core/runtime"
)

// sessionHook connects the session life-cycle hooks to the runtime. It
// reads the dispatcher at each call, so a /reload's extensions take part
// from then on. Failures of the observing hooks, and of the before_* hooks
// under the skip policy, are reported as warnings (see app.warner) and the
// change goes on.
type sessionHook struct {
	dispatcher func() *hooks.Dispatcher
	warnings   *hookWarnings
}

func (s sessionHook) report(d *hooks.Dispatcher, _ int, then string) {
	s.warnings.report(d, then)
}

// hookWarnings reports each failure a dispatcher skipped once: the session
// and compaction hooks report theirs as they happen, the interactive
// session the agent loop's (tool_call, context, …) when a run ends.
type hookWarnings struct {
	warn func(string)
	mu   sync.Mutex
	seen map[*hooks.Dispatcher]int
}

func newHookWarnings(warn func(string)) *hookWarnings {
	return &hookWarnings{warn: warn, seen: map[*hooks.Dispatcher]int{}}
}

// report warns of d's diagnostics not reported yet, each followed by then.
func (h *hookWarnings) report(d *hooks.Dispatcher, then string) {
	ds := d.Diagnostics()
	h.mu.Lock()
	from := h.seen[d]
	if from > len(ds) {
		from = len(ds)
	}
	h.seen[d] = len(ds)
	h.mu.Unlock()
	for _, dg := range ds[from:] {
		h.warn(dg.Message + then)
	}
}

func (s sessionHook) BeforeSwitch(ctx context.Context, reason, target, current string) error {
	d := s.dispatcher()
	if !d.HasSessionHooks(abi.HookSessionBeforeSwitch) {
		return nil
	}
	before := len(d.Diagnostics())
	cancel, name, err := d.SessionBeforeSwitch(ctx, abi.SessionBeforeSwitchEvent{Reason: reason, TargetSessionFile: target, SessionFile: current})
	s.report(d, before, " (the switch goes on)")
	return kept(cancel, name, abi.HookSessionBeforeSwitch, err)
}

func (s sessionHook) BeforeFork(ctx context.Context, entryID, position, current string) error {
	d := s.dispatcher()
	if !d.HasSessionHooks(abi.HookSessionBeforeFork) {
		return nil
	}
	before := len(d.Diagnostics())
	cancel, name, err := d.SessionBeforeFork(ctx, abi.SessionBeforeForkEvent{EntryID: entryID, Position: position, SessionFile: current})
	s.report(d, before, " (the fork goes on)")
	return kept(cancel, name, abi.HookSessionBeforeFork, err)
}

func kept(cancel bool, name, hook string, err error) error {
	if err != nil {
		return fmt.Errorf("the current session stays open: %w", err)
	}
	if cancel {
		return &runtime.KeptError{Extension: name, Hook: hook}
	}
	return nil
}

// Shutdown runs even when ctx is already cancelled (pi is exiting on a
// signal): each extension's call is bounded by its own timeout, so an exit
// waits at most that long per extension.
func (s sessionHook) Shutdown(ctx context.Context, reason, current, target string) {
	d := s.dispatcher()
	if !d.HasSessionHooks(abi.HookSessionShutdown) {
		return
	}
	before := len(d.Diagnostics())
	d.SessionShutdown(context.WithoutCancel(ctx), abi.SessionShutdownEvent{Reason: reason, TargetSessionFile: target, SessionFile: current})
	s.report(d, before, "")
}

func (s sessionHook) Start(ctx context.Context, reason, previous, current string) {
	d := s.dispatcher()
	if !d.HasSessionHooks(abi.HookSessionStart) {
		return
	}
	before := len(d.Diagnostics())
	d.SessionStart(ctx, abi.SessionStartEvent{Reason: reason, PreviousSessionFile: previous, SessionFile: current})
	s.report(d, before, "")
}
