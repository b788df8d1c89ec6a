package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/piwasm/pi/core/resources"
	"github.com/spf13/pflag"
)

const trustUsage = "pi trust [--revoke] [DIR]"

// cmdTrust saves (or with --revoke removes) the decision to trust a project
// directory in <agent dir>/trust.json, the file the TypeScript pi also
// reads, so a person who never opens the interactive session can trust a
// project once instead of passing --approve on every command.
func (a *app) cmdTrust(_ context.Context, args []string) error {
	fs := pflag.NewFlagSet("trust", pflag.ContinueOnError)
	fs.SetOutput(new(strings.Builder))
	revoke := fs.Bool("revoke", false, "remove the decision instead: the directory is no longer trusted")
	if err := fs.Parse(args); err != nil {
		if !errors.Is(err, pflag.ErrHelp) {
			return usagef("%v", err)
		}
		return a.helpOr(err, trustUsage+"\n\nTrusting DIR (default: the current directory) lets pi load its .pi/ settings,\nsystem prompt files, skills, templates and extensions; folders below it are\ntrusted too unless they have their own decision.", fs)
	}
	rest := fs.Args()
	if len(rest) > 1 {
		return usagef("trust takes at most one directory (got %d arguments)", len(rest))
	}
	dir := a.wd
	if len(rest) == 1 {
		dir = rest[0]
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(a.wd, dir)
		}
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("trust: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("trust: %s is not a directory", dir)
	}
	agentDir := a.agentDir()
	store := filepath.Join(agentDir, resources.TrustFileName)
	if !*revoke {
		if err := resources.SaveTrust(agentDir, dir, true); err != nil {
			return fmt.Errorf("trust: %w", err)
		}
		fmt.Fprintf(a.stdout, "trusted %s and the folders below it (saved in %s)\n", dir, store)
		return nil
	}
	if err := resources.UpdateTrust(agentDir, dir, nil); err != nil {
		return fmt.Errorf("trust: %w", err)
	}
	d, found, err := resources.LookupTrust(agentDir, dir)
	if err != nil {
		return fmt.Errorf("trust: %w", err)
	}
	if found && d.Trusted {
		// An ancestor still vouches for it: only an explicit "no" for this
		// directory makes the revocation hold.
		if err := resources.SaveTrust(agentDir, dir, false); err != nil {
			return fmt.Errorf("trust: %w", err)
		}
		fmt.Fprintf(a.stdout, "%s was trusted through %s; saved a decision not to trust it (in %s)\n", dir, d.Dir, store)
		return nil
	}
	fmt.Fprintf(a.stdout, "%s is no longer trusted (removed from %s)\n", dir, store)
	return nil
}

// shellWord quotes s for a POSIX shell when it holds anything a shell would
// split or expand, so a printed command can be pasted as it is.
func shellWord(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"$`\\*?[]#~;&|<>(){}!") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
