package abi

import "errors"

// The session life-cycle hooks, named and carrying what the established
// harness's events carry. session_start and session_shutdown only observe;
// session_before_switch and session_before_fork may cancel.
const (
	// HookSessionStart runs when a session opens: at start-up and after
	// a new, resumed, imported, forked or cloned session replaced one.
	HookSessionStart = "session_start"
	// HookSessionShutdown runs before pi leaves a session: when it exits
	// or before it replaces the session with another.
	HookSessionShutdown = "session_shutdown"
	// HookSessionBeforeSwitch runs before /new, /resume or /import (and
	// their RPC commands) replace the session; it may cancel.
	HookSessionBeforeSwitch = "session_before_switch"
	// HookSessionBeforeFork runs before /fork or /clone (and their RPC
	// commands) continue in a new session; it may cancel.
	HookSessionBeforeFork = "session_before_fork"

	ExportSessionStart        = "pi_session_start"
	ExportSessionShutdown     = "pi_session_shutdown"
	ExportSessionBeforeSwitch = "pi_session_before_switch"
	ExportSessionBeforeFork   = "pi_session_before_fork"
)

// Reasons a session starts, ends or is replaced, as the events carry them.
const (
	SessionReasonStartup = "startup"
	SessionReasonReload  = "reload"
	SessionReasonNew     = "new"
	SessionReasonResume  = "resume"
	SessionReasonFork    = "fork"
	SessionReasonQuit    = "quit"
)

// Positions of a fork: before the chosen entry (/fork) or at it (/clone).
const (
	ForkBefore = "before"
	ForkAt     = "at"
)

// SessionStartEvent is the event of HookSessionStart. Reason is
// "startup", "reload", "new", "resume" or "fork"; PreviousSessionFile is
// the session left behind for "new", "resume" and "fork" ("" when it was
// in memory only); SessionFile is the session now open ("" in memory).
type SessionStartEvent struct {
	Reason              string `json:"reason"`
	PreviousSessionFile string `json:"previousSessionFile,omitempty"`
	SessionFile         string `json:"sessionFile,omitempty"`
}

// SessionShutdownEvent is the event of HookSessionShutdown. Reason is
// "quit", "reload", "new", "resume" or "fork"; TargetSessionFile is the
// session that replaces this one, when known; SessionFile is the session
// being left.
type SessionShutdownEvent struct {
	Reason            string `json:"reason"`
	TargetSessionFile string `json:"targetSessionFile,omitempty"`
	SessionFile       string `json:"sessionFile,omitempty"`
}

// SessionBeforeSwitchEvent is the event of HookSessionBeforeSwitch.
// Reason is "new" or "resume" (an import resumes the imported copy);
// TargetSessionFile is the session switched to (for "resume" only);
// SessionFile is the current session.
type SessionBeforeSwitchEvent struct {
	Reason            string `json:"reason"`
	TargetSessionFile string `json:"targetSessionFile,omitempty"`
	SessionFile       string `json:"sessionFile,omitempty"`
}

// SessionBeforeForkEvent is the event of HookSessionBeforeFork: EntryID
// is the chosen entry, Position "before" for /fork (the new session ends
// just before it) or "at" for /clone (it ends with it).
type SessionBeforeForkEvent struct {
	EntryID     string `json:"entryId"`
	Position    string `json:"position"`
	SessionFile string `json:"sessionFile,omitempty"`
}

// SessionCancelResult is the result of HookSessionBeforeSwitch: Cancel
// keeps the current session.
type SessionCancelResult struct {
	Cancel bool `json:"cancel,omitempty"`
}

// SessionBeforeForkResult is the result of HookSessionBeforeFork: Cancel
// keeps the current session. SkipConversationRestore is accepted, as the
// established harness accepts it, and reserved: pi does nothing with it
// yet.
type SessionBeforeForkResult struct {
	Cancel                  bool `json:"cancel,omitempty"`
	SkipConversationRestore bool `json:"skipConversationRestore,omitempty"`
}

// Check refuses a position other than the two a fork has.
func (ev SessionBeforeForkEvent) Check() error {
	if ev.Position != ForkBefore && ev.Position != ForkAt {
		return errors.New(`a fork's position is "before" or "at"`)
	}
	return nil
}
