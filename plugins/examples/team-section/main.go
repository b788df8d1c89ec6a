//go:build wasip1

// team-section adds a named section from its manifest's config.
package main

import (
	"github.com/piwasm/pi/abi"
	sdk "github.com/piwasm/pi/sdk-guest"
)

type config struct {
	Name  string   `json:"name"`
	Text  string   `json:"text"`
	Order *float64 `json:"order"`
}

var cfg *config // decoded on the first call, kept for the instance's life

func init() {
	sdk.OnBeforeAgentStart(func(ev *abi.BeforeAgentStartEvent, r *sdk.BeforeAgentStart) error {
		if cfg == nil {
			c := config{Name: "team"}
			if err := sdk.Config(&c); err != nil {
				return err
			}
			cfg = &c
		}
		c := *cfg
		order := 250.0
		if c.Order != nil {
			order = *c.Order
		}
		if c.Text != "" {
			r.SetSection(c.Name, c.Text, sdk.Order(order))
		}
		return nil
	})
}

func main() {}
