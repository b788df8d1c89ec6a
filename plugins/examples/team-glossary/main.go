// team-glossary answers the glossary tool from a granted project file.
package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/piwasm/pi/abi"
	sdk "github.com/piwasm/pi/sdk-guest"
)

var file string // the glossary's path, from the config (decoded once)

func init() {
	sdk.Tool("glossary", func(ev *abi.ToolEvent) (abi.ToolResult, error) {
		if file == "" {
			var c struct {
				File string `json:"file"`
			}
			if err := sdk.Config(&c); err != nil {
				return abi.ToolResult{}, err
			}
			if c.File == "" {
				c.File = "docs/glossary.md"
			}
			file = c.File
		}
		term := strings.TrimSpace(sdk.StringArg(ev.Input, "term"))
		if term == "" {
			return sdk.ErrorResult("Give a term to look up."), nil
		}
		sdk.Update("reading " + file)
		data, err := sdk.ReadFile(file)
		switch {
		case errors.Is(err, sdk.ErrDenied):
			return sdk.ErrorResult(fmt.Sprintf("The glossary %s may not be read: grant it with `pi ext grant team-glossary` (or --grant team-glossary).", file)), nil
		case errors.Is(err, sdk.ErrNotFound):
			return sdk.ErrorResult(fmt.Sprintf("There is no glossary at %s in this project.", file)), nil
		case err != nil:
			return abi.ToolResult{}, err
		}
		return Lookup(string(data), term, file), nil
	})
}

func main() {}
