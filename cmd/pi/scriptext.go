package main

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/piwasm/pi/core/diag"
	"github.com/piwasm/pi/core/hooks"
	"github.com/piwasm/pi/core/resources"
	"github.com/piwasm/pi/core/tool"
	"github.com/piwasm/pi/host"
	"github.com/piwasm/pi/host/jsext"
)

// splitScriptExtensions separates the established harness's TypeScript
// and JavaScript extensions (host/jsext) from WASM packages, keeping each
// list in discovery order.
func splitScriptExtensions(paths []string) (wasm, scripts []string) {
	for _, p := range paths {
		if jsext.IsExtension(p) {
			scripts = append(scripts, p)
		} else {
			wasm = append(wasm, p)
		}
	}
	return wasm, scripts
}

// splitGrantFlags separates --grant values naming a script extension.
func splitGrantFlags(flags []string, scripts []string) (wasm []string, js map[string][]string) {
	names := map[string]bool{}
	for _, p := range scripts {
		names[jsext.NameFor(p)] = true
	}
	js = map[string][]string{}
	for _, g := range flags {
		name, kind, _ := strings.Cut(g, ":")
		if names[name] {
			js[name] = append(js[name], kind)
			continue
		}
		wasm = append(wasm, g)
	}
	return wasm, js
}

// scriptGrant is the grant of a script extension for this run: the stored
// one (pinned to its bundle; jsext checks the pin) with the --grant kinds
// added for this run. A bare --grant NAME grants every kind.
func scriptGrant(stored host.Grant, ok bool, kinds []string) (host.Grant, bool, error) {
	if len(kinds) == 0 {
		return stored, ok, nil
	}
	g := host.Grant{}
	if ok {
		g = stored
	}
	g.SHA256 = "" // given for this run, for whatever bundle loads
	for _, k := range kinds {
		switch k {
		case "":
			g.Exec, g.Files, g.Network, g.Env = true, []string{"*"}, []string{"*"}, []string{"*"}
		case jsext.GrantExec:
			g.Exec = true
		case jsext.GrantFiles:
			g.Files = []string{"*"}
		case jsext.GrantNetwork:
			g.Network = []string{"*"}
		case jsext.GrantEnv:
			g.Env = []string{"*"}
		default:
			return g, true, fmt.Errorf("unknown capability %q for a TypeScript extension (want exec, files, network or env)", k)
		}
	}
	return g, true, nil
}

// openScriptExtensions loads the script extensions among paths. One that
// fails to load is a diagnostic; the others still load.
func (a *app) openScriptExtensions(ctx context.Context, c *common, l *resources.Loaded, scripts []string, grantFlags map[string][]string, extUI host.UI) (*jsext.Runtime, []*jsext.Extension, []diag.Diagnostic, error) {
	store, err := host.OpenGrantStore(a.agentDir())
	if err != nil {
		return nil, nil, nil, fmt.Errorf("read stored grants: %w", err)
	}
	cfg := jsext.Config{
		AgentDir: a.agentDir(),
		Cwd:      l.Cwd,
		Home:     a.home,
		UI:       extUI,
		Mode:     c.extMode,
		HasUI:    c.extUI != nil,
		Session:  func() jsext.SessionData { return jsext.SessionData{} },
		Log: func(ext, level, msg string) {
			if !c.verbose && level != "error" && level != "warn" {
				return
			}
			if c.notice != nil {
				c.notice(fmt.Sprintf("[%s] %s: %s", esc(ext), esc(level), esc(msg)))
				return
			}
			fmt.Fprintf(a.stderr, "[%s] %s: %s\n", esc(ext), esc(level), esc(msg))
		},
	}
	// The project's files are the ones the file tools work on: an
	// extension reads and writes them without a grant.
	cfg.ProjectRoot = resources.ProjectRoot(l.Cwd)
	if c.extMode == "interactive" && c.extUI != nil {
		ui := c.extUI
		cfg.AskGrant = func(ctx context.Context, ext, kind, detail string) bool {
			a := ui.Ask(ctx, host.Question{Extension: esc(ext), Kind: host.AskConfirm, Timeout: host.QuestionTimeout,
				Title:   fmt.Sprintf("Allow extension %s to %s?", esc(ext), esc(detail)),
				Message: fmt.Sprintf("This is the %s grant; it is kept for this version of the extension.", kind)})
			return a.Confirmed && !a.Cancelled
		}
		cfg.SaveGrant = func(ext string, g host.Grant) {
			store.Set(ext, g)
			if err := store.Save(); err != nil {
				fmt.Fprintf(a.stderr, "pi: record the grant of %s: %v\n", esc(ext), err)
			}
		}
	}
	rt, err := jsext.NewRuntime(ctx, cfg)
	if err != nil {
		return nil, nil, nil, err
	}
	var exts []*jsext.Extension
	var diags []diag.Diagnostic
	seen := map[string]string{}
	for _, p := range scripts {
		name := jsext.NameFor(p)
		if prev, dup := seen[name]; dup {
			diags = append(diags, diag.Diagnostic{Kind: host.DiagDuplicate, Path: p, Extension: name,
				Message: fmt.Sprintf("another extension named %s was loaded first (%s); this one is skipped", name, prev)})
			continue
		}
		stored, ok := store.Get(name)
		g, has, err := scriptGrant(stored, ok, grantFlags[name])
		if err != nil {
			rt.Close(ctx)
			return nil, nil, nil, usagef("--grant %s: %v", name, err)
		}
		x, d, err := rt.Load(ctx, p, jsext.Options{Name: name, Grant: g, HasGrant: has})
		diags = append(diags, d...)
		if err != nil {
			diags = append(diags, diag.Diagnostic{Kind: "error", Path: p, Extension: name, Message: fmt.Sprintf("extension %s did not load: %v", name, err)})
			continue
		}
		seen[name] = p
		exts = append(exts, x)
	}
	return rt, exts, diags, nil
}

// orderHandlers puts the handlers of both kinds in discovery order.
func orderHandlers(paths []string, wasm []*host.Extension, wasmHandler func(*host.Extension) hooks.Handler, scripts []*jsext.Extension) []hooks.Handler {
	byPath := map[string]hooks.Handler{}
	for _, x := range wasm {
		byPath[filepath.Clean(x.Dir())] = wasmHandler(x)
	}
	for _, x := range scripts {
		byPath[filepath.Clean(x.Path())] = x
	}
	var out []hooks.Handler
	for _, p := range paths {
		if h, ok := byPath[filepath.Clean(p)]; ok {
			out = append(out, h)
			delete(byPath, filepath.Clean(p))
		}
	}
	// Anything not found by path (a package that resolved elsewhere)
	// keeps its kind's order after the rest.
	for _, x := range wasm {
		if h, ok := byPath[filepath.Clean(x.Dir())]; ok {
			out = append(out, h)
		}
	}
	for _, x := range scripts {
		if h, ok := byPath[filepath.Clean(x.Path())]; ok && !slices.Contains(out, h) {
			out = append(out, h)
		}
	}
	return out
}

// addScriptTools registers the script extensions' tools after the WASM
// ones, refusing a name already taken as addExtensionTools does.
func addScriptTools(r *tool.Registry, exts []*jsext.Extension, cwd string) []diag.Diagnostic {
	var out []diag.Diagnostic
	for _, x := range exts {
		for _, t := range x.Tools(cwd) {
			if err := r.Add(t); err != nil {
				out = append(out, diag.Diagnostic{Kind: host.DiagDuplicate, Path: x.Path(), Extension: x.Name(),
					Message: fmt.Sprintf("%v; the extension's tool is not registered", err)})
			}
		}
	}
	return out
}
