package hooks

import (
	"context"
	"time"

	"github.com/piwasm/pi/abi"
)

// Completer is implemented by handlers whose commands can complete their
// argument (abi.ExportCommandComplete). CompleteCommand bounds the
// completion's own run by CompletionTimeout (starting a guest that was
// not running yet is not counted).
type Completer interface {
	CompleteCommand(ctx context.Context, ev abi.CommandCompleteEvent) (abi.CommandCompleteResult, error)
}

// CompletionTimeout bounds one completion call: the person is typing, so
// a guest that takes longer (or loops) offers nothing this time.
const CompletionTimeout = time.Second

// CompleteCommand asks the extension behind the registered command name
// for completions of prefix, the text typed after "/name ". It blocks
// while the guest starts: call it off any goroutine that must stay
// responsive. A command that
// does not declare completions is not asked. A failure, a timeout or an
// invalid answer just means no completions: it is not a diagnostic, since
// it would repeat at every key press. At most abi.MaxCompletions items
// are kept, and items without a value are dropped.
func (d *Dispatcher) CompleteCommand(ctx context.Context, name, prefix string) []abi.CompletionItem {
	for _, c := range d.commands {
		if c.Name != name {
			continue
		}
		comp, ok := c.Handler.(Completer)
		if !c.Info.Completions || !ok {
			return nil
		}
		res, err := comp.CompleteCommand(ctx, abi.CommandCompleteEvent{Name: c.Info.Name, Prefix: prefix})
		if err != nil {
			return nil
		}
		var out []abi.CompletionItem
		for _, it := range res.Items {
			if it.Value == "" {
				continue
			}
			if len(out) == abi.MaxCompletions {
				break
			}
			out = append(out, it)
		}
		return out
	}
	return nil
}
