//go:build wasip1

// preset keeps the model to one of a few named instruction sets: chosen
// with --preset at start, switched with /preset (whose argument it
// completes) or with ctrl+x.
package main

import (
	"sort"
	"strings"

	"github.com/piwasm/pi/abi"
	sdk "github.com/piwasm/pi/sdk-guest"
)

type config struct {
	Presets map[string]string `json:"presets"`
}

var (
	cfg     config
	names   []string // the presets, sorted
	current string   // the preset in use ("" for none)
	started bool
)

// start reads the config and the --preset flag at the first call (neither
// is available during init).
func start() {
	if started {
		return
	}
	started = true
	sdk.Config(&cfg)
	for n := range cfg.Presets {
		names = append(names, n)
	}
	sort.Strings(names)
	if v, ok, _ := sdk.Flag("preset"); ok {
		if _, known := cfg.Presets[v]; known {
			current = v
		} else {
			sdk.Notify("warning", "--preset "+v+": no such preset (there are "+strings.Join(names, ", ")+")")
		}
	}
}

func init() {
	sdk.OnBeforeAgentStart(func(ev *abi.BeforeAgentStartEvent, r *sdk.BeforeAgentStart) error {
		start()
		if current != "" {
			r.SetSection("preset", "Preset "+current+": "+cfg.Presets[current])
		}
		return nil
	})
	sdk.CommandWith(abi.CommandInfo{Name: "preset", Completions: true}, func(ev *abi.CommandEvent) (abi.CommandResult, error) {
		start()
		arg := strings.TrimSpace(ev.Args)
		switch {
		case arg == "":
			if current == "" {
				return abi.CommandResult{Show: "no preset (choose one of " + strings.Join(names, ", ") + ")"}, nil
			}
			return abi.CommandResult{Show: "preset " + current}, nil
		case arg == "next":
			arg = names[0]
			for i, n := range names {
				if n == current {
					arg = names[(i+1)%len(names)]
				}
			}
		case cfg.Presets[arg] == "":
			return abi.CommandResult{Show: "no preset " + arg + " (there are " + strings.Join(names, ", ") + ")"}, nil
		}
		current = arg
		if !sdk.FlagOn("quiet") {
			sdk.Notify("info", "preset "+current)
		}
		return abi.CommandResult{}, nil
	})
	sdk.Completions("preset", func(ev *abi.CommandCompleteEvent) ([]abi.CompletionItem, error) {
		start()
		descs := make([]string, len(names))
		for i, n := range names {
			descs[i] = cfg.Presets[n]
		}
		choices := append(append([]string{}, names...), "next")
		return sdk.Choices(ev.Prefix, choices, append(descs, "the preset after the current one")), nil
	})
}

func main() {}
