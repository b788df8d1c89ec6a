//go:build wasip1

// unruly is a test guest that misbehaves where the interactive session
// must stay usable: its session_start fails (the warning must appear as a
// notice, not as raw stderr over the drawn screen).
package main

import (
	"errors"

	"github.com/piwasm/pi/abi"
	sdk "github.com/piwasm/pi/sdk-guest"
)

func init() {
	sdk.OnSessionStart(func(ev *abi.SessionStartEvent) error {
		return errors.New("unruly refuses to start \x1b[2Kquietly")
	})
}

func main() {}
