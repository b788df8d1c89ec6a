package hooks_test

import (
	"context"
	"fmt"

	"github.com/piwasm/pi/abi"
	"github.com/piwasm/pi/core/hooks"
	"github.com/piwasm/pi/core/prompt"
)

// teamSection is an in-process handler: the same interface WASM extensions
// implement through host.Handler.
type teamSection struct{}

func (teamSection) Name() string                { return "team" }
func (teamSection) Handles(h string) bool       { return h == abi.HookBeforeAgentStart }
func (teamSection) FailurePolicy() string       { return hooks.PolicySkip }
func (teamSection) Commands() []abi.CommandInfo { return nil }
func (teamSection) BeforeAgentStart(context.Context, abi.BeforeAgentStartEvent, hooks.Fetcher) (abi.BeforeAgentStartResult, error) {
	order := 250.0
	return abi.BeforeAgentStartResult{Ops: []abi.Op{{Op: abi.OpSetSection, Name: "team", Text: "<team>\nSmall diffs.\n</team>", Order: &order}}}, nil
}
func (teamSection) Assemble(context.Context, abi.AssembleEvent, hooks.Fetcher) (abi.AssembleResult, error) {
	return abi.AssembleResult{}, nil
}
func (teamSection) Input(context.Context, abi.InputEvent, hooks.Fetcher) (abi.InputResult, error) {
	return abi.InputResult{}, nil
}
func (teamSection) Command(context.Context, abi.CommandEvent, hooks.Fetcher) (abi.CommandResult, error) {
	return abi.CommandResult{}, nil
}

// A dispatcher runs before_agent_start over its handlers in load order and
// the assemble waterfall over the built prompt.
func ExampleDispatcher() {
	ctx := context.Background()
	d := hooks.New([]hooks.Handler{teamSection{}})
	res, err := d.BeforeAgentStart(ctx, "hello", prompt.Options{Cwd: "/src"})
	if err != nil {
		panic(err)
	}
	a, _ := prompt.Build(res.Options)
	a, err = d.Assemble(ctx, a)
	if err != nil {
		panic(err)
	}
	r, _ := prompt.Render(a)
	for _, s := range r.Sections {
		fmt.Println(s.Name, s.Source)
	}
	// Output:
	// preamble builtin
	// tools builtin
	// rules builtin
	// team extension:team
	// docs builtin
	// cwd builtin
}
