// trim-tool-output elides old tool results from the requests (not the
// session).
package main

import (
	"github.com/piwasm/pi/abi"
	sdk "github.com/piwasm/pi/sdk-guest"
)

func init() {
	sdk.OnContext(func(ev *abi.ContextEvent) (abi.ContextResult, error) {
		out, changed := trim(ev.Messages, keepWhole)
		if !changed {
			return sdk.KeepContext(), nil
		}
		return sdk.ReplaceContext(out), nil
	})
}

func main() {}
