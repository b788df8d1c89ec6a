//go:build wasip1

// trapper is a test guest whose tool_call hook crashes the module (a Go
// panic ends the guest's run, as a trap does), so that a front end's
// report of a skipped failure can be checked.
package main

import (
	"github.com/piwasm/pi/abi"
	sdk "github.com/piwasm/pi/sdk-guest"
)

var table []int

func init() {
	sdk.OnToolCall(func(ev *abi.ToolCallEvent) (abi.ToolCallResult, error) {
		i := len(ev.ToolName) + 10
		return abi.ToolCallResult{}, nil_(table[i])
	})
}

// nil_ keeps the index expression from being optimised away.
func nil_(int) error { return nil }

func main() {}
