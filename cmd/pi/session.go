package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/piwasm/pi/core/session"
	"github.com/piwasm/pi/core/session/sessioncmd"
	"github.com/spf13/pflag"
)

const sessionUsage = `Usage:
  pi session list [--all] [--cwd DIR] [--json]   sessions of this directory, newest first
  pi session show FILE|ID [--request N] [--json]  a transcript and the requests it replays to
`

func (a *app) cmdSession(ctx context.Context, args []string) error {
	if len(args) > 0 && (args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
		fmt.Fprint(a.stdout, sessionUsage)
		return errHelp
	}
	if len(args) > 0 && args[0] == "list" {
		return a.cmdSessionList(args[1:])
	}
	if len(args) == 0 || args[0] != "show" {
		return usagef("session: want a subcommand\n%s", sessionUsage)
	}
	fs := pflag.NewFlagSet("session show", pflag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON")
	req := fs.Int("request", -1, "show the exact messages of request N (0 is the first)")
	fs.SetOutput(new(strings.Builder))
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return a.helpOr(err, "pi session show FILE [flags]", fs)
		}
		return usagef("session show: %v", err)
	}
	if fs.NArg() != 1 {
		return usagef("session show needs exactly one FILE or session id (prefix)")
	}
	tr, err := a.loadSessionArg(fs.Arg(0))
	if err != nil {
		return err
	}
	return sessioncmd.Show(a.stdout, a.stderr, tr, fs.Arg(0), *req, *asJSON)
}

// loadSessionArg opens session show's argument as --session takes it: a
// file, or a session id or id prefix (this directory's sessions first,
// then every directory's).
func (a *app) loadSessionArg(arg string) (*session.Transcript, error) {
	if _, err := os.Stat(arg); err == nil || session.LooksLikePath(arg) {
		return session.Load(arg)
	}
	cwd, err := a.resolveCwd(&common{})
	if err != nil {
		return nil, err
	}
	l, err := a.load(&common{cwd: cwd})
	if err != nil {
		return nil, err
	}
	f, err := a.resolveSessionArg(a.sessionsDir(l, ""), cwd, arg)
	if err != nil {
		return nil, err
	}
	return session.Load(f.Path)
}
