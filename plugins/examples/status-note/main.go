//go:build wasip1

// status-note writes a note in an editor and shows its first line in the
// status line and the window's title, the whole note in a widget below
// the input editor; /draft fills the input editor.
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
			sdk.SetStatus("", "") // nothing to keep: the entry and widget go
			sdk.SetWidget("", nil, "")
			return abi.CommandResult{Show: "no note taken"}, nil
		}
		sdk.SetStatus("", "note: "+first)
		sdk.SetTitle("pi — note: " + first)
		sdk.SetWidget("", strings.Split(strings.TrimSpace(text), "\n"), abi.WidgetBelow)
		return abi.CommandResult{Show: "noted: " + first}, nil
	})
	sdk.Command("draft", func(ev *abi.CommandEvent) (abi.CommandResult, error) {
		sdk.SetEditorText(ev.Args)
		return abi.CommandResult{}, nil
	})
}

func main() {}
