package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/piwasm/pi/abi"
	"github.com/piwasm/pi/core/diag"
	"github.com/piwasm/pi/core/resources"
	"github.com/piwasm/pi/host"
	"github.com/spf13/pflag"
)

type extListEntry struct {
	Name     string            `json:"name"`
	Version  string            `json:"version"`
	Dir      string            `json:"dir"`
	Source   string            `json:"source"` // agent, project or path
	Loaded   bool              `json:"loaded"`
	SHA256   string            `json:"sha256,omitempty"`
	Hooks    []string          `json:"hooks"`
	Commands []abi.CommandInfo `json:"commands"`
	// Requested is what the manifest asks for; Granted what is in force
	// for this run (stored grant plus --grant flags).
	Requested abi.Capabilities `json:"requested"`
	Granted   abi.Capabilities `json:"granted"`
	// StaleGrant reports a stored grant pinned to another module.
	StaleGrant bool `json:"staleGrant"`
}

type extListJSON struct {
	Extensions  []extListEntry    `json:"extensions"`
	Diagnostics []diag.Diagnostic `json:"diagnostics"`
}

func (a *app) cmdExtList(ctx context.Context, args []string) error {
	fs := pflag.NewFlagSet("ext list", pflag.ContinueOnError)
	var c common
	c.register(fs)
	rest, err := c.parse(fs, args)
	if err != nil {
		return a.helpOr(err, "pi ext list [flags]", fs)
	}
	if len(rest) > 0 {
		return usagef("ext list takes no arguments (got %q)", rest[0])
	}
	w, err := a.prepareWorld(ctx, &c)
	if err != nil {
		return err
	}
	defer w.ext.close(ctx)
	dirs := a.extensionDirs(&c, w.loaded)
	grants, err := a.grantsFor(&c, dirs)
	if err != nil {
		return err
	}
	loaded := map[string]*host.Extension{}
	for _, x := range w.ext.exts {
		loaded[x.Dir()] = x
	}
	out := extListJSON{Extensions: []extListEntry{}, Diagnostics: w.diagnostics()}
	if out.Diagnostics == nil {
		out.Diagnostics = []diag.Diagnostic{}
	}
	agentExt := filepath.Join(w.loaded.AgentDir, "extensions")
	projExt := filepath.Join(resources.ProjectDir(w.loaded.Cwd), "extensions")
	for _, dir := range dirs {
		e := extListEntry{Name: filepath.Base(dir), Dir: dir, Source: "path", Hooks: []string{}, Commands: []abi.CommandInfo{}}
		switch filepath.Dir(dir) {
		case agentExt:
			e.Source = "agent"
		case projExt:
			e.Source = "project"
		}
		if pkg, _ := host.ReadPackage(dir); pkg != nil {
			m := pkg.Manifest
			e.Name, e.Version, e.SHA256, e.Requested = m.Name, m.Version, pkg.SHA256, m.Capabilities
			if m.Hooks != nil {
				e.Hooks = m.Hooks
			}
			if m.Commands != nil {
				e.Commands = m.Commands
			}
			g, ok := grants[m.Name]
			st := grantFor(m.Capabilities, g, ok, pkg.SHA256)
			e.Granted, e.StaleGrant = st.Granted, ok && !st.Matches
		}
		if x, ok := loaded[dir]; ok {
			e.Loaded = true
			e.Granted = x.Granted()
			if cmds := x.Commands(); cmds != nil {
				e.Commands = cmds
			}
		}
		out.Extensions = append(out.Extensions, e)
	}
	if c.json {
		return writeJSON(a.stdout, out)
	}
	return printExtList(a, out)
}

func printExtList(a *app, r extListJSON) error {
	if len(r.Extensions) == 0 {
		fmt.Fprintln(a.stdout, "no extensions (install one with pi ext install PATH, or pass -e PATH)")
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	for i, e := range r.Extensions {
		if i > 0 {
			fmt.Fprintln(tw)
		}
		state := ""
		if !e.Loaded {
			state = "  [not loaded: see diagnostics]"
		}
		fmt.Fprintf(tw, "%s %s%s\n", esc(e.Name), esc(e.Version), state)
		fmt.Fprintf(tw, "  source\t%s: %s\n", esc(e.Source), esc(e.Dir))
		fmt.Fprintf(tw, "  hooks\t%s\n", orNone(strings.Join(escAll(e.Hooks), ", ")))
		fmt.Fprintf(tw, "  commands\t%s\n", commandNames(e.Commands))
		fmt.Fprintf(tw, "  requests\t%s\n", capsText(e.Requested))
		granted := capsText(e.Granted)
		if e.StaleGrant {
			granted += " (the stored grant is for another build of the module; grant again with pi ext install PATH --yes, or --grant " + esc(e.Name) + " for one run)"
		}
		fmt.Fprintf(tw, "  granted\t%s\n", granted)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(r.Diagnostics) > 0 {
		fmt.Fprintf(a.stdout, "\ndiagnostics (%d)\n", len(r.Diagnostics))
		listDiagnostics(a.stdout, r.Diagnostics)
	}
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
