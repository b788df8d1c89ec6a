package main

import (
	"path/filepath"
	"strings"

	"github.com/piwasm/pi/core/session"
	"github.com/piwasm/pi/core/session/sessioncmd"
	"github.com/spf13/pflag"
)

// cmdSessionList lists the sessions of the working directory (every
// directory's with --all), newest first.
func (a *app) cmdSessionList(args []string) error {
	fs := pflag.NewFlagSet("session list", pflag.ContinueOnError)
	fs.SetOutput(new(strings.Builder))
	all := fs.Bool("all", false, "list the sessions of every directory")
	cwdFlag := fs.String("cwd", "", "directory whose sessions to list (default: the current directory)")
	asJSON := fs.Bool("json", false, "print JSON")
	dirFlag := fs.String("session-dir", "", "the sessions directory (default: PI_CODING_AGENT_SESSION_DIR, settings sessionDir, or the agent dir's)")
	if err := fs.Parse(args); err != nil {
		if err == pflag.ErrHelp {
			return a.helpOr(err, "pi session list [flags]", fs)
		}
		return usagef("session list: %v", err)
	}
	if fs.NArg() > 0 {
		return usagef("session list: unexpected argument %q", fs.Arg(0))
	}
	cwd, err := a.resolveCwd(&common{cwd: *cwdFlag})
	if err != nil {
		return err
	}
	var dirs []string
	l, err := a.load(&common{cwd: cwd})
	if err != nil {
		return err
	}
	own := a.sessionsDir(l, *dirFlag)
	switch {
	case !*all:
		dirs = []string{own}
	case own != session.Dir(l.AgentDir, cwd):
		// A sessions directory of its own (sessionDir) holds every
		// directory's sessions.
		dirs = []string{own}
	default:
		dirs, _ = filepath.Glob(filepath.Join(a.agentDir(), "sessions", "*"))
	}
	list := sessioncmd.List(dirs, cwd, *all)
	return sessioncmd.WriteList(a.stdout, list, cwd, filepath.Join(a.agentDir(), "sessions"), *all, *asJSON)
}
