package sdk

import "github.com/piwasm/pi/abi"

var (
	sessionStart        func(*abi.SessionStartEvent) error
	sessionShutdown     func(*abi.SessionShutdownEvent) error
	sessionBeforeSwitch func(*abi.SessionBeforeSwitchEvent) (abi.SessionCancelResult, error)
	sessionBeforeFork   func(*abi.SessionBeforeForkEvent) (abi.SessionBeforeForkResult, error)
)

// OnSessionStart registers the session_start observer, called when a
// session opens (ev.Reason says why).
func OnSessionStart(h func(ev *abi.SessionStartEvent) error) { sessionStart = h }

// OnSessionShutdown registers the session_shutdown observer, called
// before pi exits or leaves the session. It runs under the extension's
// timeout: keep it short.
func OnSessionShutdown(h func(ev *abi.SessionShutdownEvent) error) { sessionShutdown = h }

// OnSessionBeforeSwitch registers the session_before_switch handler,
// called before /new, /resume or /import. Return KeepSession() to keep the
// current session or LetSwitch() to let pi go on.
func OnSessionBeforeSwitch(h func(ev *abi.SessionBeforeSwitchEvent) (abi.SessionCancelResult, error)) {
	sessionBeforeSwitch = h
}

// OnSessionBeforeFork registers the session_before_fork handler, called
// before /fork or /clone. Return CancelFork() to stop it or
// LetFork() to let pi go on.
func OnSessionBeforeFork(h func(ev *abi.SessionBeforeForkEvent) (abi.SessionBeforeForkResult, error)) {
	sessionBeforeFork = h
}

// LetSwitch lets a switch go on.
func LetSwitch() abi.SessionCancelResult { return abi.SessionCancelResult{} }

// KeepSession cancels a switch: pi stays in the current session.
func KeepSession() abi.SessionCancelResult { return abi.SessionCancelResult{Cancel: true} }

// LetFork lets a fork or clone go on.
func LetFork() abi.SessionBeforeForkResult { return abi.SessionBeforeForkResult{} }

// CancelFork stops a fork or clone: pi stays in the current session.
func CancelFork() abi.SessionBeforeForkResult { return abi.SessionBeforeForkResult{Cancel: true} }

func handleSessionStart(ev *abi.SessionStartEvent) (abi.JSONAppender, error) {
	if sessionStart == nil {
		return nil, missing(abi.HookSessionStart)
	}
	return abi.Observed{}, sessionStart(ev)
}

func handleSessionShutdown(ev *abi.SessionShutdownEvent) (abi.JSONAppender, error) {
	if sessionShutdown == nil {
		return nil, missing(abi.HookSessionShutdown)
	}
	return abi.Observed{}, sessionShutdown(ev)
}

func handleSessionBeforeSwitch(ev *abi.SessionBeforeSwitchEvent) (abi.JSONAppender, error) {
	if sessionBeforeSwitch == nil {
		return nil, missing(abi.HookSessionBeforeSwitch)
	}
	return sessionBeforeSwitch(ev)
}

func handleSessionBeforeFork(ev *abi.SessionBeforeForkEvent) (abi.JSONAppender, error) {
	if sessionBeforeFork == nil {
		return nil, missing(abi.HookSessionBeforeFork)
	}
	return sessionBeforeFork(ev)
}
