package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/piwasm/pi/core/sandbox"
	"github.com/piwasm/pi/internal/sibling"
)

// uiName is the build with the terminal UI that `make build` installs
// beside bin/pi, which is built without it (see RATIONALE.md, "Two
// binaries").
const uiName = "pi-ui"

// handOverEnv carries the build stamp of the pi that hands an interactive
// session over to pi-ui. pi-ui runs the session only when the stamp is its
// own, as the sandbox helper runs only policies stamped by its own pi: a
// pi-ui left from another build, or another program by that name, is
// refused before it does anything.
const handOverEnv = "PI_HANDOVER_STAMP"

// handOverUI replaces this process with pi-ui beside it, with the same
// arguments and environment, for a run that opens the interactive session
// (on Windows pi-ui runs as a child, and pi exits with its code). It is
// called before the run does anything a second start would do again or
// differently: no session file, extension, MCP server, trust question or
// setting has been touched. It returns only with the reason pi-ui cannot
// be run.
func (a *app) handOverUI() error {
	const how = "build it with make build (pi -p, --mode json, --mode rpc and the subcommands work without it)"
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("the interactive session is in %s beside pi, and pi cannot find its own executable: %w", uiName, err)
	}
	p, err := sibling.Path(exe, uiName)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("the interactive session is in %s, which is missing; %s", p, how)
		}
		return fmt.Errorf("the interactive session is in %s, which cannot be run (%w); %s", p, err, how)
	}
	stamp := sandbox.BuildStamp()
	if stamp == "" {
		return fmt.Errorf("the interactive session is in %s, and this pi has no build stamp to check it against; %s", p, how)
	}
	env := append(os.Environ(), handOverEnv+"="+stamp)
	return execUI(p, a.argv, env)
}

// acceptHandOver is pi's first step: a pi started by handOverUI checks
// that the pi handing over is of its own build, and drops the stamp from
// its environment so the programs it starts do not inherit it. getenv and
// unsetenv are the process's.
func acceptHandOver(getenv func(string) string, unsetenv func(string) error) error {
	from := getenv(handOverEnv)
	if from == "" {
		return nil
	}
	_ = unsetenv(handOverEnv)
	exe, _ := os.Executable()
	if !hasUI {
		// Handing over to itself would loop.
		return fmt.Errorf("%s has no interactive UI either (it is a copy of bin/pi); rebuild both with make build", exe)
	}
	if own := sandbox.BuildStamp(); from != own {
		return fmt.Errorf("%s was built apart from the pi that handed the interactive session over (stamp %q, pi's %q); rebuild both with make build", exe, own, from)
	}
	return nil
}
