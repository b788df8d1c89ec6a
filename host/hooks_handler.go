package host

import (
	"context"

	"github.com/piwasm/pi/abi"
	"github.com/piwasm/pi/hooks"
)

// Handler adapts a loaded extension to the hooks dispatcher.
func Handler(e *Extension) hooks.Handler { return handler{e} }

type handler struct{ e *Extension }

func (h handler) Name() string                { return h.e.Name() }
func (h handler) Handles(hook string) bool    { return h.e.Handles(hook) }
func (h handler) FailurePolicy() string       { return h.e.Failure() }
func (h handler) Commands() []abi.CommandInfo { return h.e.Commands() }

func (h handler) BeforeAgentStart(ctx context.Context, ev abi.BeforeAgentStartEvent, fetch hooks.Fetcher) (abi.BeforeAgentStartResult, error) {
	return h.e.BeforeAgentStart(ctx, ev, FetchFunc(fetch))
}

func (h handler) Assemble(ctx context.Context, ev abi.AssembleEvent, _ hooks.Fetcher) (abi.AssembleResult, error) {
	return h.e.Assemble(ctx, ev)
}

func (h handler) Input(ctx context.Context, ev abi.InputEvent) (abi.InputResult, error) {
	return h.e.Input(ctx, ev)
}

func (h handler) Command(ctx context.Context, ev abi.CommandEvent) (abi.CommandResult, error) {
	return h.e.Command(ctx, ev)
}
