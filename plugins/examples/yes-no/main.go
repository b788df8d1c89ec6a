//go:build wasip1

// yes-no forces a yes/no answer for inputs starting with "?".
package main

import (
	"strings"

	"github.com/piwasm/pi/abi"
	sdk "github.com/piwasm/pi/sdk-guest"
)

// Prompt is the forced system prompt.
const Prompt = "Reply to the user's question with exactly one word, yes or no, " +
	"followed by nothing else. If you cannot tell, pick the more likely answer."

func init() {
	sdk.OnBeforeAgentStart(func(ev *abi.BeforeAgentStartEvent, r *sdk.BeforeAgentStart) error {
		if strings.HasPrefix(strings.TrimSpace(sdk.Input(ev)), "?") {
			r.ForcePrompt(Prompt)
		}
		return nil
	})
}

func main() {}
