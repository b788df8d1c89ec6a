// policy-guard keeps a `policy` section in the prompt, whatever later
// extensions do to it, and refuses tool calls the team's policy forbids.
package main

import (
	"errors"

	"github.com/piwasm/pi/abi"
	sdk "github.com/piwasm/pi/sdk-guest"
)

type config struct {
	Text  string     `json:"text"`
	Order float64    `json:"order"`
	Tools ToolPolicy `json:"tools"`
}

var cfg *config // decoded on the first call, kept for the instance's life

func load() (config, error) {
	if cfg != nil {
		return *cfg, nil
	}
	c := config{Order: 150}
	if err := sdk.Config(&c); err != nil {
		return c, err
	}
	if c.Text == "" {
		return c, errors.New("config.text is empty: there is no policy to enforce")
	}
	cfg = &c
	return c, nil
}

func init() {
	sdk.OnBeforeAgentStart(func(_ *abi.BeforeAgentStartEvent, r *sdk.BeforeAgentStart) error {
		c, err := load()
		if err != nil {
			return err
		}
		r.SetSection("policy", c.Text, sdk.Order(c.Order))
		return nil
	})
	sdk.OnAssemble(func(ev *abi.AssembleEvent, r *sdk.Assemble) error {
		c, err := load()
		if err != nil {
			return err
		}
		for _, s := range ev.Sections {
			if s.Name != "policy" || s.Order != c.Order || s.Interpolate || s.Complete {
				continue
			}
			// Long texts are not inlined: compare sizes first, then fetch.
			if s.Bytes != 0 && s.Bytes != len(c.Text) {
				continue
			}
			if text, err := sdk.Text(s); err == nil && text == c.Text {
				return nil // intact
			}
		}
		r.SetSection("policy", c.Text, sdk.Order(c.Order))
		return nil
	})
	// The failure policy is abort, so an error here (or a crash) blocks
	// the call: the policy fails closed.
	sdk.OnToolCall(func(ev *abi.ToolCallEvent) (abi.ToolCallResult, error) {
		c, err := load()
		if err != nil {
			return abi.ToolCallResult{}, err
		}
		if reason := c.Tools.Check(ev.ToolName, ev.Input, ev.Cwd); reason != "" {
			return sdk.Block(reason), nil
		}
		return sdk.Allow(), nil
	})
}

func main() {}
