package hooks

import (
	"context"
	"errors"
	"testing"

	"github.com/piwasm/pi/abi"
)

// sessionExt is a fake extension with the session hooks: it records the
// events it sees and answers cancel (or fails with err).
type sessionExt struct {
	name, policy string
	hooks        []string
	cancel       bool
	err          error
	seen         *[]string
}

func (e sessionExt) Name() string { return e.name }
func (e sessionExt) Handles(h string) bool {
	for _, x := range e.hooks {
		if x == h {
			return true
		}
	}
	return false
}
func (e sessionExt) FailurePolicy() string       { return e.policy }
func (e sessionExt) Commands() []abi.CommandInfo { return nil }
func (e sessionExt) BeforeAgentStart(context.Context, abi.BeforeAgentStartEvent, Fetcher) (abi.BeforeAgentStartResult, error) {
	return abi.BeforeAgentStartResult{}, nil
}
func (e sessionExt) Assemble(context.Context, abi.AssembleEvent, Fetcher) (abi.AssembleResult, error) {
	return abi.AssembleResult{}, nil
}
func (e sessionExt) Input(context.Context, abi.InputEvent, Fetcher) (abi.InputResult, error) {
	return abi.InputResult{}, nil
}
func (e sessionExt) Command(context.Context, abi.CommandEvent, Fetcher) (abi.CommandResult, error) {
	return abi.CommandResult{}, nil
}
func (e sessionExt) SessionStart(_ context.Context, ev abi.SessionStartEvent, _ Fetcher) error {
	*e.seen = append(*e.seen, e.name+":start:"+ev.Reason)
	return e.err
}
func (e sessionExt) SessionShutdown(_ context.Context, ev abi.SessionShutdownEvent, _ Fetcher) error {
	*e.seen = append(*e.seen, e.name+":shutdown:"+ev.Reason)
	return e.err
}
func (e sessionExt) SessionBeforeSwitch(_ context.Context, ev abi.SessionBeforeSwitchEvent, _ Fetcher) (abi.SessionCancelResult, error) {
	*e.seen = append(*e.seen, e.name+":switch:"+ev.Reason)
	return abi.SessionCancelResult{Cancel: e.cancel}, e.err
}
func (e sessionExt) SessionBeforeFork(_ context.Context, ev abi.SessionBeforeForkEvent, _ Fetcher) (abi.SessionBeforeForkResult, error) {
	*e.seen = append(*e.seen, e.name+":fork:"+ev.Position)
	return abi.SessionBeforeForkResult{Cancel: e.cancel}, e.err
}

var allSessionHooks = []string{abi.HookSessionStart, abi.HookSessionShutdown, abi.HookSessionBeforeSwitch, abi.HookSessionBeforeFork}

// TestSessionObservers: session_start and session_shutdown reach every
// extension that declares them, each time (never memoised); one that fails
// is a diagnostic and the others still run, even with the abort policy.
func TestSessionObservers(t *testing.T) {
	var seen []string
	broken := sessionExt{name: "broken", policy: PolicyAbort, hooks: allSessionHooks, err: errors.New("trap"), seen: &seen}
	log := sessionExt{name: "log", policy: PolicySkip, hooks: allSessionHooks, seen: &seen}
	deaf := sessionExt{name: "deaf", policy: PolicySkip, seen: &seen}
	d := New([]Handler{broken, log, deaf})
	d.SessionStart(context.Background(), abi.SessionStartEvent{Reason: abi.SessionReasonStartup})
	d.SessionStart(context.Background(), abi.SessionStartEvent{Reason: abi.SessionReasonStartup})
	d.SessionShutdown(context.Background(), abi.SessionShutdownEvent{Reason: abi.SessionReasonQuit})
	want := []string{"broken:start:startup", "log:start:startup", "broken:start:startup", "log:start:startup", "broken:shutdown:quit", "log:shutdown:quit"}
	if len(seen) != len(want) {
		t.Fatalf("seen %v, want %v", seen, want)
	}
	for i := range want {
		if seen[i] != want[i] {
			t.Fatalf("seen %v, want %v", seen, want)
		}
	}
	if len(d.Diagnostics()) != 3 {
		t.Fatalf("diagnostics %+v", d.Diagnostics())
	}
	var nilD *Dispatcher
	nilD.SessionShutdown(context.Background(), abi.SessionShutdownEvent{Reason: abi.SessionReasonQuit})
}

// TestSessionBeforeSwitchAndFork: the first extension that cancels keeps
// the session; one that fails is skipped with a diagnostic (the change goes
// on) unless its policy is abort, which stops the change; an invalid fork
// position is refused before any extension runs.
func TestSessionBeforeSwitchAndFork(t *testing.T) {
	var seen []string
	failing := sessionExt{name: "broken", policy: PolicySkip, hooks: allSessionHooks, err: errors.New("trap"), seen: &seen}
	pass := sessionExt{name: "pass", policy: PolicySkip, hooks: allSessionHooks, seen: &seen}
	guard := sessionExt{name: "guard", policy: PolicySkip, hooks: allSessionHooks, cancel: true, seen: &seen}
	later := sessionExt{name: "later", policy: PolicySkip, hooks: allSessionHooks, seen: &seen}
	ctx := context.Background()

	d := New([]Handler{failing, pass, guard, later})
	cancel, by, err := d.SessionBeforeSwitch(ctx, abi.SessionBeforeSwitchEvent{Reason: abi.SessionReasonNew})
	if err != nil || !cancel || by != "guard" || len(seen) != 3 {
		t.Fatalf("switch: cancel %v by %q err %v seen %v", cancel, by, err, seen)
	}
	cancel, by, err = d.SessionBeforeFork(ctx, abi.SessionBeforeForkEvent{EntryID: "e1", Position: abi.ForkAt})
	if err != nil || !cancel || by != "guard" || len(d.Diagnostics()) != 2 {
		t.Fatalf("fork: cancel %v by %q err %v diags %+v", cancel, by, err, d.Diagnostics())
	}

	d = New([]Handler{failing, pass})
	if cancel, _, err := d.SessionBeforeSwitch(ctx, abi.SessionBeforeSwitchEvent{Reason: abi.SessionReasonResume}); cancel || err != nil {
		t.Fatalf("a failing skip hook must let the switch go on: %v %v", cancel, err)
	}

	failing.policy = PolicyAbort
	d = New([]Handler{failing, guard})
	var abort *AbortError
	if cancel, _, err := d.SessionBeforeFork(ctx, abi.SessionBeforeForkEvent{Position: abi.ForkBefore}); cancel || !errors.As(err, &abort) || abort.Hook != abi.HookSessionBeforeFork {
		t.Fatalf("abort policy: cancel %v err %v", cancel, err)
	}

	n := len(seen)
	if _, _, err := d.SessionBeforeFork(ctx, abi.SessionBeforeForkEvent{Position: "sideways"}); err == nil || len(seen) != n {
		t.Fatalf("bad position: err %v, extensions called %d", err, len(seen)-n)
	}
}
