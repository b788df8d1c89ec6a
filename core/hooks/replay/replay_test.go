package replay

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/piwasm/pi/abi"
	"github.com/piwasm/pi/core/hooks"
)

// every implements every handler interface and records which hook ran.
type every struct{ ran string }

func (e *every) Name() string                { return "every" }
func (e *every) Handles(string) bool         { return true }
func (e *every) FailurePolicy() string       { return hooks.PolicySkip }
func (e *every) Commands() []abi.CommandInfo { return nil }
func (e *every) BeforeAgentStart(context.Context, abi.BeforeAgentStartEvent, hooks.Fetcher) (abi.BeforeAgentStartResult, error) {
	e.ran = abi.HookBeforeAgentStart
	return abi.BeforeAgentStartResult{}, nil
}
func (e *every) Assemble(context.Context, abi.AssembleEvent, hooks.Fetcher) (abi.AssembleResult, error) {
	e.ran = abi.HookAssemble
	return abi.AssembleResult{}, nil
}
func (e *every) Input(context.Context, abi.InputEvent, hooks.Fetcher) (abi.InputResult, error) {
	e.ran = abi.HookInput
	return abi.InputResult{}, nil
}
func (e *every) Command(context.Context, abi.CommandEvent, hooks.Fetcher) (abi.CommandResult, error) {
	e.ran = abi.HookCommand
	return abi.CommandResult{}, nil
}
func (e *every) ToolCall(context.Context, abi.ToolCallEvent, hooks.Fetcher) (abi.ToolCallResult, error) {
	e.ran = abi.HookToolCall
	return abi.ToolCallResult{}, nil
}
func (e *every) ToolResult(context.Context, abi.ToolResultEvent, hooks.Fetcher) (abi.ToolResultPatch, error) {
	e.ran = abi.HookToolResult
	return abi.ToolResultPatch{}, nil
}
func (e *every) TurnEnd(context.Context, abi.TurnEndEvent, hooks.Fetcher) error {
	e.ran = abi.HookTurnEnd
	return nil
}
func (e *every) AgentEnd(context.Context, abi.AgentEndEvent, hooks.Fetcher) error {
	e.ran = abi.HookAgentEnd
	return nil
}
func (e *every) SessionBeforeCompact(context.Context, abi.SessionBeforeCompactEvent, hooks.Fetcher) (abi.SessionBeforeCompactResult, error) {
	e.ran = abi.HookSessionBeforeCompact
	return abi.SessionBeforeCompactResult{}, nil
}
func (e *every) Context(context.Context, abi.ContextEvent, hooks.Fetcher) (abi.ContextResult, error) {
	e.ran = abi.HookContext
	return abi.ContextResult{}, nil
}
func (e *every) BeforeProviderRequest(context.Context, abi.BeforeProviderRequestEvent, hooks.Fetcher) (abi.BeforeProviderRequestResult, error) {
	e.ran = abi.HookBeforeProviderRequest
	return abi.BeforeProviderRequestResult{}, nil
}
func (e *every) SessionStart(context.Context, abi.SessionStartEvent, hooks.Fetcher) error {
	e.ran = abi.HookSessionStart
	return nil
}
func (e *every) SessionShutdown(context.Context, abi.SessionShutdownEvent, hooks.Fetcher) error {
	e.ran = abi.HookSessionShutdown
	return nil
}
func (e *every) SessionBeforeSwitch(context.Context, abi.SessionBeforeSwitchEvent, hooks.Fetcher) (abi.SessionCancelResult, error) {
	e.ran = abi.HookSessionBeforeSwitch
	return abi.SessionCancelResult{}, nil
}
func (e *every) SessionBeforeFork(context.Context, abi.SessionBeforeForkEvent, hooks.Fetcher) (abi.SessionBeforeForkResult, error) {
	e.ran = abi.HookSessionBeforeFork
	return abi.SessionBeforeForkResult{}, nil
}

// only is a plain handler without the optional interfaces.
type only struct{ every }

func TestEveryHookReachesItsHandler(t *testing.T) {
	events := map[string]string{
		abi.HookCommand:           `{"name":"x"}`,
		abi.HookSessionBeforeFork: `{"entryId":"e","position":"before"}`,
	}
	for _, hook := range abi.Hooks {
		raw := events[hook]
		if raw == "" {
			raw = "{}"
		}
		call, err := Prepare(hook, []byte(raw), nil)
		if err != nil {
			t.Errorf("%s: %v", hook, err)
			continue
		}
		h := &every{}
		res, err := call(context.Background(), h)
		if err != nil || h.ran != hook {
			t.Errorf("%s: ran %q, err %v", hook, h.ran, err)
		}
		if b, _ := json.Marshal(res); len(b) == 0 || b[0] != '{' {
			t.Errorf("%s: result %s is not an object", hook, b)
		}
	}
}

func TestBadEvents(t *testing.T) {
	for _, c := range []struct{ hook, raw, want string }{
		{"nope", "{}", "unknown hook"},
		{abi.HookToolCall, `{"tool":"bash"}`, "not a valid tool_call event"},
		{abi.HookCommand, `{}`, "needs a name"},
		{abi.HookSessionBeforeFork, `{"position":"later"}`, "before"},
		{abi.HookInput, `[1]`, "not a valid input event"},
	} {
		_, err := Prepare(c.hook, []byte(c.raw), nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: %v, want %q", c.hook, c.raw, err, c.want)
		}
	}
}

// A handler that lacks the interface of a hook gets an error naming it.
func TestHandlerWithoutTheHook(t *testing.T) {
	var plain struct{ hooks.Handler }
	plain.Handler = &only{}
	call, err := Prepare(abi.HookToolCall, []byte(`{}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := call(context.Background(), plain); err == nil || !strings.Contains(err.Error(), "cannot run the tool_call hook") {
		t.Fatalf("%v", err)
	}
}
