//go:build noui

package main

import (
	"context"

	"github.com/piwasm/pi/core/session"
)

// hasUI: this build (bin/pi from make build, tag noui) links no terminal
// UI; it hands interactive sessions to bin/pi-ui beside it (handOverUI).
// See RATIONALE.md, "Two binaries".
const hasUI = false

// runUI is not reached in this build (cmdRun hands over first); were it,
// it would hand over too.
func (a *app) runUI(context.Context, *common, *runFlags, []session.Input) error {
	return a.handOverUI()
}
