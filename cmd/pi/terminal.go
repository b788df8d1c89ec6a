//go:build !noui

package main

import (
	"encoding/json"
	"runtime"

	"github.com/piwasm/pi/core/settings"
	"github.com/piwasm/pi/ui/termcaps"
)

// terminal is what the interactive session's terminal can do, from the
// environment and the terminal.* settings (ui/termcaps decides).
func (a *app) terminal(v *settings.Settings) termcaps.Terminal {
	return termcaps.Resolve(termcaps.Env{Getenv: a.getenv, GOOS: runtime.GOOS}, func(name string) (json.RawMessage, bool) {
		val, ok := v.Lookup(name)
		return val.Raw, ok
	})
}
