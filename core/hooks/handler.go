package hooks

import (
	"context"
	"errors"
	"fmt"

	"github.com/piwasm/pi/abi"
)

// Failure policies.
const (
	// PolicySkip fails open: the stage keeps its previous value and a
	// diagnostic names the extension and the cause.
	PolicySkip = "skip"
	// PolicyAbort fails closed: the run stops with an error naming the
	// extension. Policy extensions use it so that crashing them cannot
	// bypass them.
	PolicyAbort = "abort"
)

// Fetcher serves large values a handler asks for on demand (context file
// contents, section texts, the skills catalogue, the rendered prompt). ok is
// false for an unknown key.
type Fetcher func(key string) (value []byte, ok bool)

// Handler is one extension as the dispatcher sees it. Calls for hooks the
// handler does not handle are never made.
type Handler interface {
	Name() string
	Handles(hook string) bool
	// FailurePolicy is PolicySkip or PolicyAbort.
	FailurePolicy() string
	// Commands lists the slash commands offered, in the handler's order.
	Commands() []abi.CommandInfo
	BeforeAgentStart(ctx context.Context, ev abi.BeforeAgentStartEvent, fetch Fetcher) (abi.BeforeAgentStartResult, error)
	Assemble(ctx context.Context, ev abi.AssembleEvent, fetch Fetcher) (abi.AssembleResult, error)
	// Input and Command get a fetcher too: it serves nothing of the
	// dispatcher's own, but lets adapters (and the memo layer) see the
	// files a guest reads.
	Input(ctx context.Context, ev abi.InputEvent, fetch Fetcher) (abi.InputResult, error)
	Command(ctx context.Context, ev abi.CommandEvent, fetch Fetcher) (abi.CommandResult, error)
}

// InputFilter is implemented by handlers that declare up front which user
// inputs their before_agent_start hook cares about; for other inputs the
// dispatcher does not call them at all.
type InputFilter interface {
	WantsInput(input string) bool
}

// AbortError stops a run: a handler with PolicyAbort failed.
type AbortError struct {
	Extension string
	Hook      string
	Err       error
}

func (e *AbortError) Error() string {
	return fmt.Sprintf("extension %s failed in %s and its failure policy is abort: %v", e.Extension, e.Hook, e.Err)
}

func (e *AbortError) Unwrap() error { return e.Err }

// ErrInvalidResult marks a result that broke the contract (an invalid op, a
// bad action); it counts as a failure of the handler.
var ErrInvalidResult = errors.New("invalid result")
