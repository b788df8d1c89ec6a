//go:build wasip1

// greeter asks the person a few questions before it sends a prompt.
package main

import (
	"github.com/piwasm/pi/abi"
	sdk "github.com/piwasm/pi/sdk-guest"
)

func init() {
	sdk.CommandWith(abi.CommandInfo{Name: "greet", Description: "Ask for a tone and a name, then have the model write a greeting"},
		func(ev *abi.CommandEvent) (abi.CommandResult, error) {
			tone, ok := sdk.Select("Which tone?", "formal", "casual")
			if !ok {
				return abi.CommandResult{Show: "greet: no tone chosen, nothing sent"}, nil
			}
			name, ok := sdk.AskInput("Whom to greet?", "a name")
			if !ok || name == "" {
				return abi.CommandResult{Show: "greet: no name given, nothing sent"}, nil
			}
			if !sdk.Confirm("Send the greeting request?", "A "+tone+" greeting for "+name) {
				return abi.CommandResult{Show: "greet: not confirmed, nothing sent"}, nil
			}
			sdk.Notify("info", "sending a "+tone+" greeting for "+name)
			return abi.CommandResult{Send: "Write a short " + tone + " greeting for " + name + "."}, nil
		})
}

func main() {}
