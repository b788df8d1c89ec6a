package hooks

import (
	"context"
	"fmt"
	"sync"

	"github.com/piwasm/pi/abi"
	"github.com/piwasm/pi/core/diag"
)

// Dispatcher runs hooks over its handlers in load order and collects
// diagnostics for failures it skipped. It is not safe for concurrent use.
type Dispatcher struct {
	// mu guards diagnostics: tool_result hooks of parallel calls may fail
	// at the same time.
	mu          sync.Mutex
	handlers    []Handler
	commands    []Command
	diagnostics []diag.Diagnostic
	// The last good result of each handler (by name) in this
	// dispatcher's life: a skipped failure keeps it (see BeforeAgentStart).
	lastStart    map[string]abi.BeforeAgentStartResult
	lastAssemble map[string][]abi.Op
	// onFailure hears of each skipped failure as it happens.
	onFailure func(Failure)
}

// Failure is one failure of a handler that the dispatcher skipped (its
// policy is skip): the handler's name, the hook and the cause.
type Failure struct {
	Extension string
	Hook      string
	Err       error
}

// SetOnFailure sets fn to hear of every failure the dispatcher skips, as
// it is recorded (nil: none), so a front end can report it at once (RPC
// mode's extension_error). fn may be called from several goroutines (tool
// hooks of parallel calls) and must not call back into the dispatcher.
func (d *Dispatcher) SetOnFailure(fn func(Failure)) { d.onFailure = fn }

// record adds a skipped failure's diagnostic and tells onFailure.
func (d *Dispatcher) record(h Handler, hook string, err error, msg string) {
	d.mu.Lock()
	d.diagnostics = append(d.diagnostics, diag.Diagnostic{Kind: "error", Extension: h.Name(), Message: msg})
	fn := d.onFailure
	d.mu.Unlock()
	if fn != nil {
		fn(Failure{Extension: h.Name(), Hook: hook, Err: err})
	}
}

// Command is a registered slash command. Name is what the user types: the
// offered name, or name:N when several extensions offer the same name.
type Command struct {
	Name    string
	Info    abi.CommandInfo
	Handler Handler
}

// New returns a dispatcher over handlers in load order and registers their
// commands: a name offered by more than one handler becomes name:1, name:2,
// … in load order.
func New(handlers []Handler) *Dispatcher {
	d := &Dispatcher{handlers: handlers}
	count := map[string]int{}
	for _, h := range handlers {
		if !h.Handles(abi.HookCommand) {
			continue
		}
		for _, c := range h.Commands() {
			count[c.Name]++
		}
	}
	seen := map[string]int{}
	for _, h := range handlers {
		if !h.Handles(abi.HookCommand) {
			continue
		}
		for _, c := range h.Commands() {
			name := c.Name
			if count[c.Name] > 1 {
				seen[c.Name]++
				name = fmt.Sprintf("%s:%d", c.Name, seen[c.Name])
			}
			d.commands = append(d.commands, Command{Name: name, Info: c, Handler: h})
		}
	}
	return d
}

// Handlers returns the handlers in load order.
func (d *Dispatcher) Handlers() []Handler { return d.handlers }

// Commands returns the registered commands in load order.
func (d *Dispatcher) Commands() []Command { return d.commands }

// Diagnostics returns what the dispatcher skipped so far.
func (d *Dispatcher) Diagnostics() []diag.Diagnostic {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]diag.Diagnostic(nil), d.diagnostics...)
}

// fail applies h's failure policy to err: it records a diagnostic and
// returns nil (skip), or returns an AbortError (abort).
func (d *Dispatcher) fail(h Handler, hook string, err error) error {
	if h.FailurePolicy() == PolicyAbort {
		return &AbortError{Extension: h.Name(), Hook: hook, Err: err}
	}
	d.record(h, hook, err, fmt.Sprintf("extension %s failed in %s and was skipped: %v", h.Name(), hook, err))
	return nil
}

// InputOutcome is what the input hook chain made of a line.
type InputOutcome struct {
	// Handled is true when an extension consumed the input; Text is then
	// what to show the user (may be empty).
	Handled bool
	// Text is the (possibly transformed) input, or the text to show.
	Text string
}

// Input runs the input hook: transforms chain in load order, the first
// handler that reports handled stops the chain.
func (d *Dispatcher) Input(ctx context.Context, text string) (InputOutcome, error) {
	for _, h := range d.handlers {
		if !h.Handles(abi.HookInput) {
			continue
		}
		res, err := h.Input(ctx, abi.InputEvent{Text: text}, nil)
		if err == nil {
			switch res.Action {
			case "", abi.ActionContinue:
				continue
			case abi.ActionTransform:
				text = res.Text
				continue
			case abi.ActionHandled:
				return InputOutcome{Handled: true, Text: res.Text}, nil
			default:
				err = fmt.Errorf("%w: unknown action %q", ErrInvalidResult, res.Action)
			}
		}
		if ferr := d.fail(h, abi.HookInput, err); ferr != nil {
			return InputOutcome{}, ferr
		}
	}
	return InputOutcome{Text: text}, nil
}

// FindCommand returns the command a line invokes: "/name args" where name is
// the run of non-space characters after the slash. ok is false when the
// line is not a registered command.
func (d *Dispatcher) FindCommand(line string) (cmd Command, args string, ok bool) {
	if len(line) < 2 || line[0] != '/' {
		return Command{}, "", false
	}
	end := 1
	for end < len(line) && !isSpace(line[end]) {
		end++
	}
	name := line[1:end]
	for _, c := range d.commands {
		if c.Name == name {
			rest := line[end:]
			for len(rest) > 0 && isSpace(rest[0]) {
				rest = rest[1:]
			}
			return c, rest, true
		}
	}
	return Command{}, "", false
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

// RunCommand runs a registered command. A failure follows the handler's
// policy: with skip the error is returned as a diagnostic-worthy error but
// the harness goes on; the caller shows it.
func (d *Dispatcher) RunCommand(ctx context.Context, c Command, args, cwd string) (abi.CommandResult, error) {
	res, err := c.Handler.Command(ctx, abi.CommandEvent{Name: c.Info.Name, Args: args, Cwd: cwd}, nil)
	if err != nil {
		if ferr := d.fail(c.Handler, abi.HookCommand, err); ferr != nil {
			return abi.CommandResult{}, ferr
		}
		return abi.CommandResult{}, fmt.Errorf("command /%s (extension %s): %w", c.Name, c.Handler.Name(), err)
	}
	return res, nil
}
