//go:build !noui

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/atotto/clipboard"
	"github.com/piwasm/pi"
	"github.com/piwasm/pi/abi"
	"github.com/piwasm/pi/core/agent"
	"github.com/piwasm/pi/core/auth"
	"github.com/piwasm/pi/core/diag"
	"github.com/piwasm/pi/core/keybind"
	"github.com/piwasm/pi/core/provider"
	"github.com/piwasm/pi/core/resources"
	"github.com/piwasm/pi/core/runtime"
	"github.com/piwasm/pi/core/session"
	"github.com/piwasm/pi/core/settings"
	"github.com/piwasm/pi/core/theme"
	"github.com/piwasm/pi/internal/changelog"
	"github.com/piwasm/pi/ui"
	"github.com/piwasm/pi/ui/termcaps"
)

// runUI opens the interactive session; inputs are sent first.
func (a *app) runUI(ctx context.Context, c *common, r *runFlags, inputs []session.Input) error {
	if r.resume {
		// pi -r: the picker comes before the session, which then runs in
		// the chosen session's directory.
		path, cwd, err := a.pickAtStart(ctx, c, r)
		if err != nil {
			return err
		}
		if path == "" {
			fmt.Fprintln(a.stdout, "No session selected")
			return nil
		}
		r.resume, r.sessionFile = false, path
		if cwd != "" {
			c.cwd = cwd
		}
	}
	q := &ui.Questions{}
	c.extUI = q.ExtensionUI()
	c.extMode = "interactive"
	c.notice = q.Notice
	ls, err := a.openLive(ctx, c, r, q)
	if err != nil {
		return err
	}
	defer ls.close()
	// The agent loop's hooks (tool_call, context, …) that failed and were
	// skipped are told when the run ends, as notices.
	ls.rt.Subscribe(func(e agent.Event) {
		if e.Type == agent.AgentEnd {
			ls.warnings.report(ls.rt.Runner().Dispatcher, "")
		}
	})
	l := ls.world.loaded
	if inputs, err = fitImages(inputs, l.Values); err != nil {
		return err
	}
	trustDir, askTrust := a.trustQuestion(c, l)
	var diags []diag.Diagnostic
	told := map[string]bool{} // hook failures, told as notices already
	for _, d := range ls.rt.Runner().Dispatcher.Diagnostics() {
		told[d.Message] = true
	}
	for _, d := range ls.world.diagnostics() {
		// The trust question says why .pi/ did not load.
		if !(askTrust && d.Kind == "skipped") && !told[d.Message] {
			diags = append(diags, d)
		}
	}
	th := &themeHost{a: a, flags: &r.peer.themes}
	diags = append(diags, th.load(l)...)
	if !r.tuiChosen && l.Values != nil && l.Values.String("tuiMode") == "fullscreen" {
		r.fullscreen = true
	}
	var notes strings.Builder
	if ls.noModel {
		fmt.Fprintf(&notes, "No model yet: /login PROVIDER stores an API key for a provider (then /model PROVIDER/ID picks one of its models), or list your providers and models in %s (docs/configuration.md, \"models.json\").\n", filepath.Join(l.AgentDir, "models.json"))
	}
	printDiagnostics(&notes, diags)
	if w := termcaps.TmuxKeysWarning(a.getenv, nil); w != "" {
		fmt.Fprintf(&notes, "pi: warning: %s\n", w)
	}
	h := ui.Host{
		Runtime: ls.rt, Cwd: l.Cwd, Home: a.home, Initial: inputs, Notices: strings.TrimSpace(notes.String()),
		FullScreen: r.fullscreen, Color: a.getenv("NO_COLOR") == "", Terminal: a.terminal(l.Values),
		Summarizer: branchSummarizer(ls), SkipSummaryPrompt: branchSettings(ls).SkipPrompt,
		DoubleEscape: l.Values.String("doubleEscapeAction"), TreeFilter: l.Values.String("treeFilterMode"),
		Reload: func() ([]string, error) {
			changes, err := a.reloadLive(ctx, c, ls)
			if err == nil {
				for _, d := range th.load(ls.world.loaded) {
					changes = append(changes, "! "+d.String())
				}
			}
			return changes, err
		},
		Themes:       func() *theme.Set { return th.set },
		ThemeSetting: func() string { return th.setting(ls.world.loaded) },
		Appearance:   theme.EnvAppearance(a.getenv),
		MCP:          a.mcpHost(ctx, ls),
		NewSession: func() error {
			return ls.rt.Replace(ctx, runtime.ReplaceNew, "", func() (*session.Transcript, error) {
				return a.freshTranscript(a.sessionsDir(ls.world.loaded, r.sessionDir), ls.world.loaded.Cwd, r.noSession)
			})
		},
		OpenSession: func(path string) error {
			return ls.rt.Replace(ctx, runtime.ReplaceResume, path, func() (*session.Transcript, error) {
				return session.OpenAppend(path)
			})
		},
		Models: func() ([]string, error) {
			m, err := provider.LoadModels(filepath.Join(ls.world.loaded.AgentDir, "models.json"), a.getenv)
			if err != nil {
				return nil, err
			}
			return m.Specs(), nil
		},
		SetModel: func(spec string) error {
			prov, id, ok := strings.Cut(spec, "/")
			if !ok {
				prov, id = "", spec
			}
			route, err := a.resolveModel(ls.world.loaded.AgentDir, prov, id)
			if err != nil {
				return err
			}
			if r.apiKey != "" {
				route.APIKey = r.apiKey
			}
			if !strings.Contains(id, ":") {
				// A new model keeps the chosen level (clamped when sent)
				// unless the spec names one (provider/id:high).
				route.Thinking = ls.rt.Route().Thinking
			}
			ls.rt.SetRoute(route)
			return nil
		},
		ScopedModels: func() ([]string, error) { return a.modelScope(ls, r) },
		Clipboard:    clipboard.WriteAll,
		SaveAPIKey: func(prov, key string) (string, error) {
			st, err := auth.Load(filepath.Join(ls.world.loaded.AgentDir, auth.FileName))
			if err != nil {
				return "", err
			}
			if err := st.SetAPIKey(prov, key); err != nil {
				return "", err
			}
			if cur := ls.rt.Route(); cur.Provider == prov && r.apiKey == "" {
				// The model in use takes the new key from its next request.
				if route, err := a.resolveModel(ls.world.loaded.AgentDir, prov, cur.ModelID); err == nil {
					route.Thinking = cur.Thinking
					ls.rt.SetRoute(route)
				}
			}
			return st.Path, nil
		},
		LoginProviders: func() []string {
			m, err := provider.LoadModels(filepath.Join(ls.world.loaded.AgentDir, "models.json"), a.getenv)
			if err != nil {
				return nil
			}
			var out []string
			for _, p := range m.Providers {
				out = append(out, p.Name)
			}
			return out
		},
		StoredCredentials: func() ([]string, error) {
			st, err := auth.Load(filepath.Join(ls.world.loaded.AgentDir, auth.FileName))
			if err != nil {
				return nil, err
			}
			return st.Providers(), nil
		},
		Logout: func(prov string) (bool, error) {
			st, err := auth.Load(filepath.Join(ls.world.loaded.AgentDir, auth.FileName))
			if err != nil {
				return false, err
			}
			return st.Remove(prov)
		},
		Settings: func() ([]ui.Setting, error) {
			list, err := uiSettings(ls.world.loaded.Values, ls.world.loaded.AgentDir)
			return th.withTheme(list, ls.world.loaded), err
		},
		SetSetting: func(name, value string) (string, error) {
			list, err := uiSettings(ls.world.loaded.Values, ls.world.loaded.AgentDir)
			if err != nil {
				return "", err
			}
			list = th.withTheme(list, ls.world.loaded)
			for _, s := range list {
				if s.Name == name {
					return s.File, settings.SetInFile(s.File, name, json.RawMessage(value))
				}
			}
			return "", fmt.Errorf("%s cannot be changed from /settings", name)
		},
		ImportSession: func(path string) (string, error) {
			// An import resumes the imported copy; extensions are asked
			// before it is made, so a cancel leaves no copy behind.
			var stored string
			err := ls.rt.Replace(ctx, runtime.ReplaceResume, "", func() (*session.Transcript, error) {
				s, tr, err := importSession(a.sessionsDir(ls.world.loaded, r.sessionDir), ls.world.loaded.Cwd, path)
				stored = s
				return tr, err
			})
			return stored, err
		},
		TrustStatus: func() (ui.TrustStatus, error) {
			return trustStatus(ls.world.loaded.AgentDir, ls.world.loaded.Cwd, ls.world.loaded.Trust.Trusted)
		},
		SetTrust:  func(c ui.TrustChoice) error { return setTrust(ls.world.loaded.AgentDir, ls.world.loaded.Cwd, c) },
		Changelog: pi.Changelog(),
		Share:     func(page []byte) (string, error) { return shareGist(ctx, page) },
		Shortcuts: func() []ui.Shortcut { return extShortcuts(ls.world.ext) },
		Keys:      func() *keybind.Bindings { return uiKeys(ls.world.loaded.Keybindings) },
		PasteClipboard: func() (ui.Pasted, error) {
			return pasteClipboard(ls.world.loaded.Values)
		},
		Sections: func() ([]ui.Section, error) {
			p, err := session.Prepare(ctx, ls.world.ext.dispatcher, ls.world.opts, "")
			if err != nil {
				return nil, err
			}
			var out []ui.Section
			for _, s := range p.Rendered.Sections {
				out = append(out, ui.Section{Name: s.Name, Source: s.Source, Bytes: len(s.Text)})
			}
			return out, nil
		},
	}
	picker := a.pickerHost(l, a.sessionsDir(l, r.sessionDir), func() (string, *session.Transcript) {
		return ls.rt.State().SessionFile, ls.rt.Transcript()
	})
	h.Sessions, h.SessionText, h.RenameSession, h.DeleteSession = picker.Sessions, picker.SessionText, picker.RenameSession, picker.DeleteSession
	if ls.warmer != nil {
		h.CacheWarming = func() string { return cacheWarmingSummary(ls.warmer, l.Values) }
	}
	disp := ui.DisplayFrom(l.Values)
	h.Display = &disp
	h.Startup = a.startupListing(ls, c, r)
	h.ResumeCommand = func() string { return resumeCommand(ls.rt.State().SessionFile) }
	if v := l.Values; v != nil {
		h.ExternalEditor = v.String("externalEditor")
		h.HideThinking = v.Bool("hideThinkingBlock")
		h.CacheNotices = v.Bool("showCacheMissNotices")
		if v.String("sessionShareDestination") == "radius" {
			h.ShareRefusal = `sessionShareDestination is "radius", the established harness's own sharing service, which pi does not upload to; set it to "gist" (or "auto") to share as a GitHub gist`
		}
	}
	if len(ls.rt.Messages()) == 0 {
		// A fresh session says once what changed since the version this
		// agent dir last ran (a resumed one has its own history on screen).
		news, err := changelog.WhatsNew(l.AgentDir, pi.Changelog(), version, l.Values != nil && l.Values.Bool("collapseChangelog"))
		if err != nil {
			fmt.Fprintf(a.stderr, "pi: changelog: %v\n", err)
		}
		h.WhatsNew = news
	}
	if dir := trustDir; askTrust {
		h.TrustDir = dir
		h.Trust = func(yes bool) ([]string, error) {
			if err := resources.SaveTrust(l.AgentDir, dir, yes); err != nil {
				return nil, err
			}
			if !yes {
				return nil, nil
			}
			return a.reloadLive(ctx, c, ls)
		}
	}
	return ui.Run(ctx, h, q, a.stdin, a.stdout)
}

// trustQuestion says whether to ask about trusting the project: it has a
// .pi/ folder, it is not trusted, and nobody decided (no saved answer, no
// --approve/--no-approve).
func (a *app) trustQuestion(c *common, l *resources.Loaded) (string, bool) {
	if l.Trust.Trusted || c.approve || c.noApprove {
		return "", false
	}
	dir := l.Cwd
	if fi, err := os.Stat(filepath.Join(dir, ".pi")); err != nil || !fi.IsDir() {
		return "", false
	}
	if _, found, err := resources.StoredTrust(l.AgentDir, dir); err != nil || found {
		return "", false
	}
	return dir, true
}

// reloadLive re-reads resources and extensions and gives the session the
// new prompt options; it returns what changed, for the person. The next
// request carries only the sections that changed (the transcript diffs
// them). Extension grants are not asked here: the terminal belongs to the
// session; a new extension that needs one stays without it until pi is
// started again.
func (a *app) reloadLive(ctx context.Context, c *common, ls *liveSession) ([]string, error) {
	quiet := *a
	quiet.isTerminal = false
	w, err := quiet.prepareWorld(ctx, c)
	if err != nil {
		return nil, err
	}
	old := ls.world
	before, _ := session.Prepare(ctx, old.ext.dispatcher, old.opts, "")
	after, perr := session.Prepare(ctx, w.ext.dispatcher, w.opts, "")
	if perr != nil {
		w.ext.close(ctx)
		return nil, perr
	}
	// The old extensions hear the session end, the new ones its start,
	// both with the reason reload, as in the established harness.
	cur := ls.rt.Transcript().Path
	ls.hook.Shutdown(ctx, abi.SessionReasonReload, cur, "")
	if err := ls.rt.Reconfigure(func(r *session.Runner) {
		r.Loaded, r.Options, r.Dispatcher = w.loaded, w.opts, w.ext.dispatcher
	}); err != nil {
		w.ext.close(ctx)
		return nil, err
	}
	ls.hook.Start(ctx, abi.SessionReasonReload, "", cur)
	ls.world = w
	old.ext.close(ctx)
	var changes []string
	if before != nil {
		changes = sectionChanges(before, after)
	}
	changes = append(changes, countChange("skills", len(old.loaded.Skills), len(w.loaded.Skills))...)
	changes = append(changes, countChange("templates", len(old.loaded.Templates), len(w.loaded.Templates))...)
	changes = append(changes, countChange("extensions", len(old.ext.exts), len(w.ext.exts))...)
	for _, d := range w.diagnostics() {
		changes = append(changes, "! "+d.Message)
	}
	return changes, nil
}

func sectionChanges(before, after *session.Prepared) []string {
	type sec struct{ text, source string }
	old := map[string]sec{}
	for _, s := range before.Rendered.Sections {
		old[s.Name] = sec{s.Text, s.Source}
	}
	var out []string
	seen := map[string]bool{}
	for _, s := range after.Rendered.Sections {
		seen[s.Name] = true
		o, ok := old[s.Name]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("+ section %s (%s)", s.Name, s.Source))
		case o.text != s.Text:
			out = append(out, fmt.Sprintf("~ section %s changed (%s)", s.Name, s.Source))
		}
	}
	for _, s := range before.Rendered.Sections {
		if !seen[s.Name] {
			out = append(out, fmt.Sprintf("- section %s", s.Name))
		}
	}
	return out
}

func countChange(what string, before, after int) []string {
	if before == after {
		return nil
	}
	return []string{fmt.Sprintf("%s: %d → %d", what, before, after)}
}
