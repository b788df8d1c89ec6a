//go:build wasip1

// unruly is a test guest that misbehaves where the interactive session
// must stay usable:
//
//   - its session_start fails (the warning must appear as a notice, not
//     as raw stderr over the drawn screen);
//   - the completer of its command /spin never returns (the editor must
//     keep taking keys, and the completion give up).
//
// Its manifests are written by the tests, which also use it to declare
// flags and shortcuts that clash with pi's own.
package main

import (
	"errors"

	"github.com/piwasm/pi/abi"
	sdk "github.com/piwasm/pi/sdk-guest"
)

var sink int

func init() {
	sdk.OnSessionStart(func(ev *abi.SessionStartEvent) error {
		return errors.New("unruly refuses to start \x1b[2Kquietly")
	})
	sdk.Command("spin", func(ev *abi.CommandEvent) (abi.CommandResult, error) {
		return abi.CommandResult{Show: "spun " + ev.Args}, nil
	})
	sdk.Completions("spin", func(ev *abi.CommandCompleteEvent) ([]abi.CompletionItem, error) {
		for {
			sink++
		}
	})
}

func main() {}
