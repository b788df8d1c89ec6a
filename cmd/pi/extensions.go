package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/piwasm/pi/abi"
	"github.com/piwasm/pi/core/diag"
	"github.com/piwasm/pi/core/hooks"
	"github.com/piwasm/pi/core/resources"
	"github.com/piwasm/pi/host"
	"github.com/piwasm/pi/host/jsext"
)

// extEnv is the loaded extensions of one command.
type extEnv struct {
	rt   *host.Runtime
	exts []*host.Extension
	// js runs the TypeScript/JavaScript extensions (jsExts), nil when
	// there are none.
	js         *jsext.Runtime
	jsExts     []*jsext.Extension
	dispatcher *hooks.Dispatcher
	diags      []diag.Diagnostic
}

func (e *extEnv) close(ctx context.Context) {
	if e == nil {
		return
	}
	if e.js != nil {
		e.js.Close(ctx)
	}
	if e.rt == nil {
		return
	}
	// The runtime closes every extension it loaded, after stopping what
	// still runs in the background: closing them one by one first would
	// wait on a warm-up in progress.
	e.rt.Close(ctx)
}

// extensionDirs are the packages to load: discovered ones (agent dir,
// trusted project, settings) plus -e paths, or only the -e paths with
// --no-extensions.
func (a *app) extensionDirs(c *common, l *resources.Loaded) []string {
	if !c.noExtensions {
		return l.ExtensionDirs
	}
	var out []string
	for _, p := range a.fromShell(c.extensions) {
		p = resources.ExpandHome(p, a.home)
		if !filepath.IsAbs(p) {
			p = filepath.Join(l.Cwd, p)
		}
		out = append(out, filepath.Clean(p))
	}
	return out
}

// openExtensions loads the extension packages for a command. Packages that
// fail to load become diagnostics; the command goes on without them.
func (a *app) openExtensions(ctx context.Context, c *common, l *resources.Loaded) (*extEnv, error) {
	env := &extEnv{}
	all := a.extensionDirs(c, l)
	if len(all) == 0 {
		env.dispatcher = hooks.New(nil)
		return env, nil
	}
	dirs, scripts := splitScriptExtensions(all)
	wasmGrants, jsGrants := splitGrantFlags(c.grants, scripts)
	wc := *c
	wc.grants = wasmGrants
	grants, err := a.grantsFor(&wc, dirs)
	if err != nil {
		return nil, err
	}
	var extUI host.UI = &host.DefaultUI{W: a.stderr}
	if c.extUI != nil {
		extUI = c.extUI
	}
	if len(scripts) > 0 {
		js, jsExts, jdiags, err := a.openScriptExtensions(ctx, c, l, scripts, jsGrants, extUI)
		if err != nil {
			return nil, err
		}
		env.js, env.jsExts = js, jsExts
		env.diags = append(env.diags, jdiags...)
	}
	rt, err := host.NewRuntime(ctx, host.Config{
		UI:              extUI,
		AgentDir:        a.agentDir(),
		ProjectRoot:     resources.ProjectRoot(l.Cwd),
		Lazy:            true,
		ExtensionConfig: extensionConfig(l.Settings),
		Flags:           c.extFlags,
		Log: func(ext, level, msg string) {
			if !c.verbose {
				return
			}
			if c.notice != nil {
				c.notice(fmt.Sprintf("[%s] %s: %s", esc(ext), esc(level), esc(msg)))
				return
			}
			fmt.Fprintf(a.stderr, "[%s] %s: %s\n", esc(ext), esc(level), esc(msg))
		},
	})
	if err != nil {
		env.close(ctx)
		return nil, fmt.Errorf("start the extension runtime: %w", err)
	}
	env.rt = rt
	exts, diags := rt.Load(ctx, dirs, grants)
	env.exts = exts
	env.diags = append(env.diags, diags...)
	env.diags = append(env.diags, unknownConfigNames(l.Settings, exts, env.jsExts)...)
	// A flag pi cannot offer is said at every load, not only when it is
	// used on the command line.
	var ms []manifestAt
	for _, x := range exts {
		ms = append(ms, manifestAt{m: x.Manifest(), dir: x.Dir()})
	}
	_, clashes := collectExtFlags(ms)
	env.diags = append(env.diags, clashes...)
	if err := abortOnFailedLoad(dirs, exts, diags); err != nil {
		env.close(ctx)
		return nil, err
	}
	var store hooks.MemoStore
	if !c.noMemo {
		store = host.NewDirStore(host.MemoDir(a.agentDir()))
	}
	handlers := orderHandlers(all, exts, func(x *host.Extension) hooks.Handler { return host.Handler(x, store) }, env.jsExts)
	env.dispatcher = hooks.New(handlers)
	if report := c.extError; report != nil {
		dirs := make(map[string]string, len(exts))
		for _, x := range exts {
			dirs[x.Name()] = x.Dir()
		}
		for _, x := range env.jsExts {
			dirs[x.Name()] = x.Path()
		}
		env.dispatcher.SetOnFailure(func(f hooks.Failure) { report(dirs[f.Extension], f.Hook, f.Err.Error()) })
	}
	return env, nil
}

// grantsFor merges stored grants with --grant flags for this run. A flag
// is NAME (everything NAME's manifest requests) or NAME:KIND with KIND one
// of files, network, env, clock, random.
func (a *app) grantsFor(c *common, dirs []string) (host.Grants, error) {
	store, err := host.OpenGrantStore(a.agentDir())
	if err != nil {
		return nil, fmt.Errorf("read stored grants: %w", err)
	}
	if err := a.askGrants(c, dirs, store); err != nil {
		return nil, err
	}
	grants := store.Grants()
	if len(c.grants) == 0 {
		return grants, nil
	}
	// The first package of a name is the one that loads; later ones are
	// rejected as duplicates, so grants follow the first.
	type pkgRef struct {
		m   *abi.Manifest
		dir string
	}
	byName := map[string]pkgRef{}
	for _, d := range dirs {
		if m, _ := host.ReadManifest(d); m != nil {
			if _, seen := byName[m.Name]; !seen {
				byName[m.Name] = pkgRef{m, d}
			}
		}
	}
	extra := host.Grants{}
	for _, g := range c.grants {
		name, kind, _ := strings.Cut(g, ":")
		ref, ok := byName[name]
		if !ok {
			return nil, usagef("--grant %s: no extension named %q is being loaded", g, name)
		}
		// A grant for this run is by name, not pinned to a module hash:
		// the user is looking at what they grant.
		all := host.GrantAll(*ref.m, "")
		cur, had := extra[name]
		if !had {
			cur = host.Grant{}
			// Granting one kind for this run adds to what is stored for
			// this very module; it does not take the rest away.
			if stored, ok := grants[name]; ok && kind != "" {
				if pkg, _ := host.ReadPackage(ref.dir); pkg != nil && (stored.SHA256 == "" || stored.SHA256 == pkg.SHA256) {
					cur = stored
				}
			}
		}
		switch kind {
		case "":
			cur = all
		case "files":
			cur.Files = all.Files
		case "network":
			cur.Network = all.Network
		case "env":
			cur.Env = all.Env
		case "clock":
			cur.Clock = all.Clock
		case "random":
			cur.Random = all.Random
		default:
			return nil, usagef("--grant %s: unknown capability %q (want files, network, env, clock or random)", g, kind)
		}
		if kind != "" && !requests(ref.m.Capabilities, kind) {
			return nil, usagef("--grant %s: %s does not request %s (it requests %s)", g, name, kind, capsText(ref.m.Capabilities))
		}
		extra[name] = cur
	}
	return grants.Merge(extra), nil
}

// requests reports whether a manifest asks for the capability kind.
func requests(c abi.Capabilities, kind string) bool {
	switch kind {
	case "files":
		return len(c.Files) > 0
	case "network":
		return len(c.Network) > 0
	case "env":
		return len(c.Env) > 0
	case "clock":
		return c.Clock
	case "random":
		return c.Random
	}
	return false
}

// hookNames lists the hooks an extension handles, for listings.
func hookNames(m abi.Manifest) string {
	if len(m.Hooks) == 0 {
		return "-"
	}
	return strings.Join(m.Hooks, ",")
}

// abortOnFailedLoad stops the command when an extension whose manifest asks
// for failure: abort could not be loaded: going on without it would let a
// corrupted or tampered module switch a policy off.
func abortOnFailedLoad(dirs []string, exts []*host.Extension, diags []diag.Diagnostic) error {
	loaded := map[string]bool{}
	for _, x := range exts {
		loaded[filepath.Clean(x.Dir())] = true
	}
	for _, d := range dirs {
		if loaded[filepath.Clean(d)] {
			continue
		}
		// Only the manifest is needed to know the policy: a missing or
		// unreadable module must not hide it.
		m, _ := host.ReadManifest(d)
		if m == nil || m.FailurePolicy() != hooks.PolicyAbort {
			continue
		}
		name := m.Name
		var causes []string
		for _, dg := range diags {
			if dg.Extension == name || strings.HasPrefix(dg.Path, filepath.Clean(d)) {
				causes = append(causes, dg.Message)
			}
		}
		if len(causes) == 0 {
			causes = append(causes, "it did not load")
		}
		return fmt.Errorf("extension %s failed to load and its failure policy is abort: %s", name, strings.Join(causes, "; "))
	}
	return nil
}

// askGrants asks, on a terminal only, about each extension that requests
// capabilities and has no stored decision for its current module. The
// answer, yes or no, is stored pinned to the module's SHA-256, so a module
// is asked about once; a changed module is asked about again. Extensions
// named by --grant are not asked about: the flag already answers for this
// run. Without a terminal nothing is asked and nothing new is granted.
func (a *app) askGrants(c *common, dirs []string, store *host.GrantStore) error {
	if !a.isTerminal {
		return nil
	}
	perRun := map[string]bool{}
	for _, g := range c.grants {
		name, _, _ := strings.Cut(g, ":")
		perRun[name] = true
	}
	var in *bufio.Reader
	changed := false
	for _, d := range dirs {
		m, _ := host.ReadManifest(d)
		if m == nil || m.Capabilities.Empty() || perRun[m.Name] {
			continue
		}
		if g, ok := store.Get(m.Name); ok && g.SHA256 == "" {
			continue // a grant the user wrote by hand for any module
		}
		pkg, _ := host.ReadPackage(d)
		if pkg == nil {
			continue // the load reports why
		}
		if g, ok := store.Get(m.Name); ok && g.SHA256 == pkg.SHA256 {
			continue // already decided for this module
		}
		if in == nil {
			in = bufio.NewReader(a.stdin)
		}
		fmt.Fprintf(a.stderr, "extension %s (%s) asks for: %s\ngrant it? [y/N] ", esc(m.Name), esc(d), capsText(m.Capabilities))
		line, _ := in.ReadString('\n')
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
			store.Set(m.Name, host.GrantAll(*m, pkg.SHA256))
		default:
			// Remember the refusal too, so the question is not repeated.
			store.Set(m.Name, host.Grant{SHA256: pkg.SHA256})
		}
		changed = true
	}
	if changed {
		if err := store.Save(); err != nil {
			return fmt.Errorf("record grants: %w", err)
		}
	}
	return nil
}

// extensionConfig turns settings.json's extensionConfig into the host's
// form: one JSON object per extension name.
func extensionConfig(s resources.Settings) map[string]json.RawMessage {
	if len(s.ExtensionConfig) == 0 {
		return nil
	}
	out := make(map[string]json.RawMessage, len(s.ExtensionConfig))
	for name, keys := range s.ExtensionConfig {
		if b, err := json.Marshal(keys); err == nil {
			out[name] = b
		}
	}
	return out
}

// unknownConfigNames reports extensionConfig entries that name no loaded
// extension: a misspelt name would otherwise leave a policy on its
// defaults without a word.
func unknownConfigNames(s resources.Settings, exts []*host.Extension, scripts []*jsext.Extension) []diag.Diagnostic {
	loaded := map[string]bool{}
	for _, x := range exts {
		loaded[x.Name()] = true
	}
	for _, x := range scripts {
		loaded[x.Name()] = true
	}
	var out []diag.Diagnostic
	for _, name := range slices.Sorted(maps.Keys(s.ExtensionConfig)) {
		if !loaded[name] {
			out = append(out, diag.Diagnostic{Kind: host.DiagConfig, Extension: name,
				Message: fmt.Sprintf("settings.json's extensionConfig names %q, but no extension of that name is loaded", name)})
		}
	}
	return out
}
