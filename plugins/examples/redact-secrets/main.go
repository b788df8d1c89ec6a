// redact-secrets masks secrets in tool results.
package main

import (
	"github.com/piwasm/pi/abi"
	sdk "github.com/piwasm/pi/sdk-guest"
)

var mask *string // decoded on the first call

func init() {
	sdk.OnToolResult(func(ev *abi.ToolResultEvent) (abi.ToolResultPatch, error) {
		if mask == nil {
			var c struct {
				Mask string `json:"mask"`
			}
			if err := sdk.Config(&c); err != nil {
				return abi.ToolResultPatch{}, err
			}
			if c.Mask == "" {
				c.Mask = "[redacted]"
			}
			mask = &c.Mask
		}
		var out []abi.ContentPart
		for i, p := range ev.Content {
			if p.Type != "text" {
				continue
			}
			masked, n := Redact(p.Text, *mask)
			if n == 0 {
				continue
			}
			if out == nil {
				out = append([]abi.ContentPart(nil), ev.Content...)
			}
			out[i].Text = masked
		}
		if out == nil {
			return sdk.Unchanged(), nil // nothing found: nothing to send back
		}
		return abi.ToolResultPatch{Content: out}, nil
	})
}

func main() {}
