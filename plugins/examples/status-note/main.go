//go:build wasip1

// status-note writes a note in an editor and shows its first line in the
// status line.
package main

import (
	"strings"

	"github.com/piwasm/pi/abi"
	sdk "github.com/piwasm/pi/sdk-guest"
)

func init() {
	sdk.Command("note", func(ev *abi.CommandEvent) (abi.CommandResult, error) {
		sdk.SetStatus("", "writing a note…")
		text, ok := sdk.Editor("Note for this session", ev.Args)
		first, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
		if !ok || first == "" {
			sdk.SetStatus("", "") // nothing to keep: the entry goes
			return abi.CommandResult{Show: "no note taken"}, nil
		}
		sdk.SetStatus("", "note: "+first)
		return abi.CommandResult{Show: "noted: " + first}, nil
	})
}

func main() {}
