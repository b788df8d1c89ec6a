//go:build !noui

package main

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/piwasm/pi/ui"
)

// startupListing is what the interactive session shows first: pi's
// version and keys, the model scope and what was loaded, as much of it as
// quietStartup and --verbose ask for (ui.Startup decides).
func (a *app) startupListing(ls *liveSession, c *common, r *runFlags) *ui.Startup {
	l := ls.world.loaded
	s := &ui.Startup{Version: version, Verbose: c.verbose}
	if l.Values != nil {
		switch l.Values.String("quietStartup") {
		case "header":
			s.Quiet = "header"
		default:
			if l.Values.Bool("quietStartup") {
				s.Quiet = "true"
			}
		}
	}
	if scope, err := a.modelScope(ls, r); err == nil {
		s.Scope = scope
	}
	// The system prompt's files count as context, as in the other harness.
	var ctxFiles []string
	if l.CustomPromptSource != "" {
		ctxFiles = append(ctxFiles, l.CustomPromptSource)
	}
	ctxFiles = append(ctxFiles, l.AppendSources...)
	for _, f := range l.ContextFiles {
		ctxFiles = append(ctxFiles, f.Path)
	}
	ctx := ui.StartupSection{Name: "Context", Ordered: true}
	for _, p := range ctxFiles {
		ctx.Short = append(ctx.Short, a.shortPath(p, l.Cwd))
		ctx.Long = append(ctx.Long, a.homePath(p))
	}
	skills := ui.StartupSection{Name: "Skills"}
	for _, sk := range l.Skills {
		skills.Short = append(skills.Short, sk.Name)
		skills.Long = append(skills.Long, a.homePath(sk.FilePath))
	}
	prompts := ui.StartupSection{Name: "Prompts"}
	for _, t := range l.Templates {
		prompts.Short = append(prompts.Short, "/"+t.Name)
		prompts.Long = append(prompts.Long, "/"+t.Name+"  "+a.homePath(t.FilePath))
	}
	exts := ui.StartupSection{Name: "Extensions"}
	for _, x := range ls.world.ext.exts {
		exts.Short = append(exts.Short, x.Name())
		exts.Long = append(exts.Long, x.Name()+"  "+a.homePath(x.Dir()))
	}
	servers := ui.StartupSection{Name: "MCP servers"}
	if ls.mcp != nil {
		for _, st := range ls.mcp.Status() {
			if !st.Enabled {
				continue
			}
			servers.Short = append(servers.Short, st.Name)
			servers.Long = append(servers.Long, st.Name+"  "+st.Transport+", "+a.homePath(st.Source))
		}
	}
	s.Sections = []ui.StartupSection{ctx, skills, prompts, exts, servers}
	return s
}

// homePath shows p with the home directory as ~.
func (a *app) homePath(p string) string {
	if a.home != "" && (p == a.home || strings.HasPrefix(p, a.home+string(filepath.Separator))) {
		return "~" + strings.TrimPrefix(p, a.home)
	}
	return p
}

// shortPath shows p relative to the working directory when it lies
// inside it, else as homePath does.
func (a *app) shortPath(p, cwd string) string {
	if rel, err := filepath.Rel(cwd, p); err == nil && rel != "." && !strings.HasPrefix(rel, "..") && !filepath.IsAbs(rel) {
		return rel
	}
	return a.homePath(p)
}

// resumeCommand is the command that goes on with the session file, when
// it is saved.
func resumeCommand(file string) string {
	if file == "" {
		return ""
	}
	if fi, err := os.Stat(file); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	if strings.ContainsAny(file, " \t'\"$`\\") {
		file = "'" + strings.ReplaceAll(file, "'", `'\''`) + "'"
	}
	return "pi --session " + file
}
