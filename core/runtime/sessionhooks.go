package runtime

import (
	"context"
	"fmt"

	"github.com/piwasm/pi/core/session"
)

// Why a session is replaced, as the session hooks name it.
const (
	ReplaceNew    = "new"
	ReplaceResume = "resume"
	ReplaceFork   = "fork"
)

// SessionHook lets extensions take part when the session is replaced.
// BeforeSwitch and BeforeFork may stop the change: a *KeptError when an
// extension cancelled it, another error when one failed under the abort
// policy. Shutdown and Start only observe (the session left, the session
// opened); a file is "" for a session kept in memory only.
type SessionHook interface {
	BeforeSwitch(ctx context.Context, reason, target, current string) error
	BeforeFork(ctx context.Context, entryID, position, current string) error
	Shutdown(ctx context.Context, reason, current, target string)
	Start(ctx context.Context, reason, previous, current string)
}

// KeptError says an extension cancelled a session change: pi stays in the
// current session.
type KeptError struct {
	Extension, Hook string
}

func (e *KeptError) Error() string {
	return fmt.Sprintf("extension %s cancelled this in %s; the current session stays open", e.Extension, e.Hook)
}

// SetSessionHook sets the hook extensions take part in session changes
// through (nil: none).
func (rt *Runtime) SetSessionHook(h SessionHook) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.sessionHook = h
}

func (rt *Runtime) idleHook() (SessionHook, string, error) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.running || rt.navigating {
		return nil, "", ErrBusy
	}
	return rt.sessionHook, rt.runner.Transcript.Path, nil
}

// Replace switches to the session open returns ("new" or "resume" says
// why; target is the file switched to when it is known before opening).
// Extensions are asked first and may keep the current session (then open
// is never called); after the switch they are told the old session was
// left and the new one opened.
func (rt *Runtime) Replace(ctx context.Context, reason, target string, open func() (*session.Transcript, error)) error {
	h, prev, err := rt.idleHook()
	if err != nil {
		return err
	}
	if h != nil {
		if err := h.BeforeSwitch(ctx, reason, target, prev); err != nil {
			return err
		}
	}
	tr, err := open()
	if err != nil {
		return err
	}
	if err := rt.Switch(tr); err != nil {
		tr.Close()
		return err
	}
	if h != nil {
		h.Shutdown(ctx, reason, prev, tr.Path)
		h.Start(ctx, reason, prev, tr.Path)
	}
	return nil
}
