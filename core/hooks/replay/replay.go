package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/piwasm/pi/abi"
	"github.com/piwasm/pi/core/hooks"
)

// Call runs the prepared event through h's hook and returns the hook's
// result (an empty object for the observe-only hooks).
type Call func(ctx context.Context, h hooks.Handler) (any, error)

// observed is the result shown for hooks that only observe.
type observed struct{}

// Prepare decodes raw as the event of hook (unknown fields are an error,
// so a misspelt key is not silently dropped) and returns the call. fetch
// serves the keys a guest fetches during the call (nil: none).
func Prepare(hook string, raw []byte, fetch hooks.Fetcher) (Call, error) {
	dec := func(v any) error {
		d := json.NewDecoder(bytes.NewReader(raw))
		d.DisallowUnknownFields()
		if err := d.Decode(v); err != nil {
			return fmt.Errorf("the event is not a valid %s event: %w", hook, err)
		}
		return nil
	}
	switch hook {
	case abi.HookBeforeAgentStart:
		var ev abi.BeforeAgentStartEvent
		return prep(dec, &ev, func(ctx context.Context, h hooks.Handler) (any, error) { return h.BeforeAgentStart(ctx, ev, fetch) })
	case abi.HookAssemble:
		var ev abi.AssembleEvent
		return prep(dec, &ev, func(ctx context.Context, h hooks.Handler) (any, error) { return h.Assemble(ctx, ev, fetch) })
	case abi.HookInput:
		var ev abi.InputEvent
		return prep(dec, &ev, func(ctx context.Context, h hooks.Handler) (any, error) { return h.Input(ctx, ev, fetch) })
	case abi.HookCommand:
		var ev abi.CommandEvent
		c, err := prep(dec, &ev, func(ctx context.Context, h hooks.Handler) (any, error) { return h.Command(ctx, ev, fetch) })
		if err == nil && ev.Name == "" {
			return nil, fmt.Errorf(`the command event needs a name: {"name": "cmd", "args": "..."}`)
		}
		return c, err
	case abi.HookToolCall:
		var ev abi.ToolCallEvent
		return prep(dec, &ev, tool(hook, func(ctx context.Context, t hooks.ToolHandler) (any, error) { return t.ToolCall(ctx, ev, fetch) }))
	case abi.HookToolResult:
		var ev abi.ToolResultEvent
		return prep(dec, &ev, tool(hook, func(ctx context.Context, t hooks.ToolHandler) (any, error) { return t.ToolResult(ctx, ev, fetch) }))
	case abi.HookTurnEnd:
		var ev abi.TurnEndEvent
		return prep(dec, &ev, tool(hook, func(ctx context.Context, t hooks.ToolHandler) (any, error) {
			return observed{}, t.TurnEnd(ctx, ev, fetch)
		}))
	case abi.HookAgentEnd:
		var ev abi.AgentEndEvent
		return prep(dec, &ev, tool(hook, func(ctx context.Context, t hooks.ToolHandler) (any, error) {
			return observed{}, t.AgentEnd(ctx, ev, fetch)
		}))
	case abi.HookSessionBeforeCompact:
		var ev abi.SessionBeforeCompactEvent
		return prep(dec, &ev, func(ctx context.Context, h hooks.Handler) (any, error) {
			c, ok := h.(hooks.CompactHandler)
			if !ok {
				return nil, cannot(h, hook)
			}
			res, err := c.SessionBeforeCompact(ctx, ev, fetch)
			return checked(res, err, res.Check)
		})
	case abi.HookContext:
		var ev abi.ContextEvent
		return prep(dec, &ev, func(ctx context.Context, h hooks.Handler) (any, error) {
			c, ok := h.(hooks.ContextHandler)
			if !ok {
				return nil, cannot(h, hook)
			}
			res, err := c.Context(ctx, ev, fetch)
			return checked(res, err, res.Check)
		})
	case abi.HookBeforeProviderRequest:
		var ev abi.BeforeProviderRequestEvent
		return prep(dec, &ev, func(ctx context.Context, h hooks.Handler) (any, error) {
			c, ok := h.(hooks.ProviderRequestHandler)
			if !ok {
				return nil, cannot(h, hook)
			}
			res, err := c.BeforeProviderRequest(ctx, ev, fetch)
			return checked(res, err, res.Check)
		})
	case abi.HookSessionStart:
		var ev abi.SessionStartEvent
		return prep(dec, &ev, session(hook, func(ctx context.Context, s hooks.SessionHandler) (any, error) {
			return observed{}, s.SessionStart(ctx, ev, fetch)
		}))
	case abi.HookSessionShutdown:
		var ev abi.SessionShutdownEvent
		return prep(dec, &ev, session(hook, func(ctx context.Context, s hooks.SessionHandler) (any, error) {
			return observed{}, s.SessionShutdown(ctx, ev, fetch)
		}))
	case abi.HookSessionBeforeSwitch:
		var ev abi.SessionBeforeSwitchEvent
		return prep(dec, &ev, session(hook, func(ctx context.Context, s hooks.SessionHandler) (any, error) {
			return s.SessionBeforeSwitch(ctx, ev, fetch)
		}))
	case abi.HookSessionBeforeFork:
		var ev abi.SessionBeforeForkEvent
		c, err := prep(dec, &ev, session(hook, func(ctx context.Context, s hooks.SessionHandler) (any, error) {
			return s.SessionBeforeFork(ctx, ev, fetch)
		}))
		if err == nil {
			if cerr := ev.Check(); cerr != nil {
				return nil, fmt.Errorf("the event is not a valid %s event: %w", hook, cerr)
			}
		}
		return c, err
	}
	return nil, fmt.Errorf("unknown hook %q (want one of %s)", hook, strings.Join(abi.Hooks, ", "))
}

func prep(dec func(any) error, ev any, c Call) (Call, error) {
	if err := dec(ev); err != nil {
		return nil, err
	}
	return c, nil
}

func cannot(h hooks.Handler, hook string) error {
	return fmt.Errorf("extension %q cannot run the %s hook", h.Name(), hook)
}

func tool(hook string, f func(context.Context, hooks.ToolHandler) (any, error)) Call {
	return func(ctx context.Context, h hooks.Handler) (any, error) {
		t, ok := h.(hooks.ToolHandler)
		if !ok {
			return nil, cannot(h, hook)
		}
		return f(ctx, t)
	}
}

func session(hook string, f func(context.Context, hooks.SessionHandler) (any, error)) Call {
	return func(ctx context.Context, h hooks.Handler) (any, error) {
		s, ok := h.(hooks.SessionHandler)
		if !ok {
			return nil, cannot(h, hook)
		}
		return f(ctx, s)
	}
}

// checked rejects a result the dispatcher would reject, so a test passes
// only when a real run would accept the answer.
func checked(res any, err error, check func() error) (any, error) {
	if err != nil {
		return nil, err
	}
	if cerr := check(); cerr != nil {
		return nil, fmt.Errorf("%w: %v", hooks.ErrInvalidResult, cerr)
	}
	return res, nil
}
