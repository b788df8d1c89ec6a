//go:build wasip1

// team-section adds a named section from its manifest's config.
package main

import (
	"github.com/piwasm/pi/abi"
	sdk "github.com/piwasm/pi/sdk-guest"
)

type config struct {
	name, text string
	order      float64
}

var cfg *config // read on the first call, kept for the instance's life

// load reads the config's three values with sdk.ConfigString and
// sdk.ConfigNumber rather than sdk.Config(&v): they need no encoding/json,
// which would make this guest about a third larger (and every fresh
// process hashes, maps and decodes all of it).
func load() (*config, error) {
	c := config{name: "team", order: 250}
	name, ok, err := sdk.ConfigString("name")
	if err != nil {
		return nil, err
	}
	if ok {
		c.name = name
	}
	if c.text, _, err = sdk.ConfigString("text"); err != nil {
		return nil, err
	}
	order, ok, err := sdk.ConfigNumber("order")
	if err != nil {
		return nil, err
	}
	if ok {
		c.order = order
	}
	return &c, nil
}

func init() {
	sdk.OnBeforeAgentStart(func(ev *abi.BeforeAgentStartEvent, r *sdk.BeforeAgentStart) error {
		if cfg == nil {
			c, err := load()
			if err != nil {
				return err
			}
			cfg = c
		}
		if cfg.text != "" {
			r.SetSection(cfg.name, cfg.text, sdk.Order(cfg.order))
		}
		return nil
	})
}

func main() {}
