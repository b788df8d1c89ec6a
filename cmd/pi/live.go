package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/piwasm/pi/abi"
	"github.com/piwasm/pi/core/agent"
	"github.com/piwasm/pi/core/compact"
	"github.com/piwasm/pi/core/hooks"
	"github.com/piwasm/pi/core/mcp"
	"github.com/piwasm/pi/core/permission"
	"github.com/piwasm/pi/core/promptcache"
	"github.com/piwasm/pi/core/provider"
	"github.com/piwasm/pi/core/resources"
	"github.com/piwasm/pi/core/runtime"
	"github.com/piwasm/pi/core/session"
	"github.com/piwasm/pi/core/tool"
	"github.com/piwasm/pi/core/tool/builtin"
)

// liveSession is everything a running session needs, built once for every
// mode: print, JSON, RPC and the terminal UI.
type liveSession struct {
	// noModel: nothing to choose a model from (the interactive session
	// opened without one).
	noModel bool
	rt      *runtime.Runtime
	world   *prepared
	replay  *session.Replay
	gate    *session.Gate
	mcp     *mcp.Manager // nil: no MCP servers
	close   func()
	hook    sessionHook // the session life-cycle hooks
	// warnings reports the extension hooks' skipped failures once each.
	warnings *hookWarnings
	// warmer keeps the prompt cache warm (nil for a replay).
	warmer *promptcache.Warmer
}

// openLive loads resources and extensions, resolves the model, opens the
// session file, builds the sandboxed tools and the permission gate, and
// wraps it all in a runtime bound to ctx. asker answers permission "ask"
// rules (nil: they deny, as print and JSON modes must never wait).
func (a *app) openLive(ctx context.Context, c *common, r *runFlags, asker permission.Asker) (*liveSession, error) {
	w, err := a.prepareWorld(ctx, c)
	if err != nil {
		return nil, err
	}
	ok := false
	closers := []func(){func() { w.ext.close(ctx) }}
	closeAll := func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	defer func() {
		if !ok {
			closeAll()
		}
	}()

	var replay *session.Replay
	var route provider.Route
	noModel := false
	if path, isReplay := strings.CutPrefix(r.model, "replay:"); isReplay {
		if replay, err = session.LoadReplay(a.fromShell([]string{path})[0]); err != nil {
			return nil, err
		}
		replay.Cwd = w.loaded.Cwd
		route = provider.Route{Provider: "replay", ModelID: filepath.Base(path), API: "replay", SystemInHistory: true}
	} else if route, err = a.route(w.loaded, r); err != nil {
		if !errors.Is(err, provider.ErrNoModel) || r.model != "" || !a.wantsUI(r) || r.dryRun {
			// Before the session is opened: a run that cannot start
			// leaves no file behind.
			return nil, err
		}
		// The interactive session opens without a model, as the
		// established harness does: /login and /model lead on.
		noModel, route = true, provider.Route{}
	}
	tr, err := a.openSession(a.sessionsDir(w.loaded, r.sessionDir), w.loaded.Cwd, r)
	if err != nil {
		return nil, err
	}
	var rt *runtime.Runtime
	closers = append(closers, func() {
		if rt != nil {
			rt.Transcript().Close()
			return
		}
		tr.Close()
	})
	if replay == nil {
		route = a.sessionRoute(w.loaded, r, tr, route)
	}
	for _, p := range tr.Problems {
		fmt.Fprintf(a.stderr, "pi: warning: %s:%d: %s\n", esc(tr.Path), p.Line, esc(p.Message))
	}
	if !r.dryRun {
		if n, err := session.CloseDangling(tr, nil); err != nil {
			return nil, err
		} else if n > 0 {
			fmt.Fprintf(a.stderr, "pi: the session stopped in the middle of %d tool call(s); they are recorded as aborted\n", n)
		}
	}

	policy, warns, err := a.buildPolicy(r.sandbox, w.loaded.Values, w.loaded.Cwd)
	for _, warn := range warns {
		fmt.Fprintf(a.stderr, "pi: warning: %s\n", esc(warn.Error()))
	}
	if err != nil {
		return nil, err
	}
	closers = append(closers, func() { _ = policy.Close() }) // the allow-list proxy, if it started
	if a.exitSweep != nil {
		sweep := policy.SweepAtExit
		a.exitSweep.Store(&sweep)
	}
	// Whether commands get mount namespaces takes a fork of pi to find
	// out; outside the interactive session (whose screen owns the
	// terminal once it starts) that notice waits for the first confined
	// command, so a run that starts none does not pay for the probe.
	var later func(string)
	if !a.wantsUI(r) {
		later = func(n string) { fmt.Fprintf(a.stderr, "pi: %s\n", n) }
	}
	if n := policy.Notices(later); n != "" {
		fmt.Fprintf(a.stderr, "pi: %s\n", n)
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find pi's own executable for the sandbox helper: %w", err)
	}
	// The rules are read once, here, like the sandbox policy above:
	// nothing a tool writes during the run changes them (/reload re-reads
	// resources, not these).
	paths := permission.Paths{Home: a.home, Cwd: w.loaded.Cwd}
	rules, rerrs := permission.LoadRules(w.loaded.Values.Layers("permissions"), paths)
	for _, e := range rerrs {
		fmt.Fprintf(a.stderr, "pi: warning: %s\n", esc(e.Error()))
	}
	checker := permission.NewChecker(rules)
	// grep, find and ls leave out the entries a path rule refuses (the
	// gate judges only the path they were given).
	visit := func(toolName, path string) error {
		if r, refused := checker.EntryRefused(toolName, path); refused {
			return fmt.Errorf("refused by %s", r)
		}
		return nil
	}
	shell, prefix := a.shellSettings(w.loaded.Values)
	recheck := func(toolName, path string) error {
		if r, denied := checker.DeniedPath(toolName, path); denied {
			return fmt.Errorf("refused by the deny rule %s in %s (the path resolves to %s)", r, r.Source, path)
		}
		return nil
	}
	environ := a.commandEnviron(w.loaded.AgentDir, policy.PassEnv, func() string {
		if rt != nil {
			return rt.Route().ThinkingLevel()
		}
		return route.ThinkingLevel()
	})
	env := policy.Apply(builtin.Env{Cwd: w.loaded.Cwd, Home: a.home, Locks: &tool.Locks{}, Shell: shell, CommandPrefix: prefix, Visit: visit, Recheck: recheck, KeepImageSize: !w.loaded.Values.Bool("images.autoResize"), Environ: environ, Env: []string{
		"PI_SESSION_ID=" + tr.Header.ID, "PI_SESSION_FILE=" + tr.Path,
		"PI_PROVIDER=" + route.Provider, "PI_MODEL=" + route.ModelID,
	}}, exe)
	// A write the sandbox refuses is a decision too: it goes into the
	// session in use, with the sandbox as its source.
	recordDenial := func(toolName, reason string) {
		if rt != nil {
			rt.Transcript().Append(session.Entry{Type: session.TypeDecision, Decision: &session.Decision{Tool: toolName, Outcome: "deny", Source: "sandbox", Reason: reason}})
		}
	}
	if guard := env.Guard; guard != nil {
		env.Guard = func(op builtin.Access, path string) error {
			err := guard(op, path)
			if err != nil {
				recordDenial("file", err.Error())
			}
			return err
		}
	}
	reg := tool.NewRegistry()
	var override *sandboxOverride
	if asker != nil && policy.Confined() {
		base := builtin.Env{Cwd: w.loaded.Cwd, Home: a.home, Locks: env.Locks, Environ: environ, Env: env.Env, Shell: shell, CommandPrefix: prefix, Visit: visit, Recheck: recheck, KeepImageSize: env.KeepImageSize}
		for _, t := range builtin.Tools(policy.Unconfined().Apply(base, exe)) {
			if t.Name == "bash" {
				override = &sandboxOverride{asker: asker, policy: policy, paths: permission.Paths{Home: a.home, Cwd: w.loaded.Cwd}, unconfined: t.Run,
					record: func(d session.Decision) {
						rt.Transcript().Append(session.Entry{Type: session.TypeDecision, Decision: &d})
					}}
			}
		}
	}
	for _, t := range policy.AnnotateBash(builtin.Tools(env)) {
		if t.Name == "bash" && override != nil {
			t = override.wrap(t)
		}
		if t.Name == "bash" {
			run := t.Run
			t.Run = func(ctx context.Context, call tool.Call, update tool.Update) (tool.Result, error) {
				res, err := run(ctx, call, update)
				if err == nil && res.IsError {
					if note := policy.Explain(res.Text(), 1); note != "" {
						recordDenial("bash", note)
					}
				}
				return res, err
			}
		}
		if err := reg.Add(t); err != nil {
			return nil, err
		}
	}
	// Clashes were reported when the world was prepared.
	_ = addExtensionTools(reg, w.ext.exts, w.loaded.Cwd)
	_ = addScriptTools(reg, w.ext.jsExts, w.loaded.Cwd)
	if w.ext.js != nil {
		// TypeScript extensions run commands through the bash tool's
		// sandboxed shell and reach files under its guard, and read the
		// session in use.
		w.ext.js.BindTools(env)
		w.ext.js.BindSession(func() string {
			if rt != nil {
				return rt.Transcript().Path
			}
			return tr.Path
		})
	}
	gate := &session.Gate{Checker: checker, Paths: paths, Asker: asker, Next: session.NewExtensionHooks(w.ext.dispatcher, w.loaded.Cwd),
		Record: func(d session.Decision) error {
			// The decision goes to the session in use now (a session can
			// be switched between runs).
			return rt.Transcript().Append(session.Entry{Type: session.TypeDecision, Decision: &d})
		}}
	client, err := a.modelClient(w.loaded.Values)
	if err != nil {
		return nil, err
	}
	runner := &session.Runner{
		Transcript: tr, Dispatcher: w.ext.dispatcher, Loaded: w.loaded, Options: w.opts,
		Route: route, Client: client, Tools: reg, Hooks: gate, NoExpand: r.noExpand, MaxTokens: r.maxTokens,
		CacheRetention: cacheRetention(a.getenv),
	}
	if replay != nil {
		runner.Model = replay.Stream
	}
	mcpm := a.startMCP(w, r, c, policy, exe, reg, runner, &closers)
	rt = runtime.New(ctx, runner)
	// steeringMode and followUpMode: how queued messages are delivered
	// (values checked by the settings model).
	if err := rt.SetQueueModes(w.loaded.Values.String("steeringMode"), w.loaded.Values.String("followUpMode")); err != nil {
		fmt.Fprintf(a.stderr, "pi: warning: settings: %s\n", esc(err.Error()))
	}
	cs, cerr := compact.FromValues(w.loaded.Values, route.Provider, route.ModelID)
	if cerr != nil {
		fmt.Fprintf(a.stderr, "pi: warning: settings: %s (using the default)\n", esc(cerr.Error()))
	}
	// A failed summary request is retried with the agent's retry.*
	// settings, as the established harness does.
	rt.SetSummaryRetry(compact.RetryFromValues(w.loaded.Values))
	warnings := newHookWarnings(a.warner(c))
	rt.SetCompaction(cs, compactHook(func() *hooks.Dispatcher { return rt.Runner().Dispatcher }, warnings))
	// A switch of model (/model, ctrl+p, RPC set_model) takes that
	// model's overrides; a bad value was reported above.
	values := w.loaded.Values
	rt.SetCompactionFor(func(provider, modelID string) compact.Settings {
		s, _ := compact.FromValues(values, provider, modelID)
		return s
	})
	// A retried request ends with auto_retry_end after its assistant
	// message, as the established harness reports it: success, or the
	// final error, so a client that shows "retrying" can stop showing it.
	var retried atomic.Int64
	emit := runner.Emit
	runner.Emit = func(e agent.Event) {
		emit(e)
		if e.Type != agent.MessageEnd || e.Message == nil || e.Message.Role != "assistant" {
			return
		}
		if n := retried.Swap(0); n > 0 {
			end := agent.Event{Type: agent.AutoRetryEnd, Attempt: int(n), Success: e.Message.StopReason != "error" && e.Message.StopReason != "aborted"}
			if !end.Success {
				end.ErrorMessage = e.Message.ErrorMessage
			}
			emit(end)
		}
	}
	client.OnRetry = func(attempt, max int, delay time.Duration, err error) {
		retried.Store(int64(attempt))
		rt.Publish(agent.Event{Type: agent.AutoRetryStart, Attempt: attempt, MaxAttempts: max, DelayMs: delay.Milliseconds(), ErrorMessage: err.Error()})
	}
	// Extensions hear of the session opening now and of its end when pi
	// leaves it (ls.close, on every way out of a mode).
	sh := sessionHook{dispatcher: func() *hooks.Dispatcher { return rt.Runner().Dispatcher }, warnings: warnings}
	rt.SetSessionHook(sh)
	sh.Start(ctx, abi.SessionReasonStartup, "", tr.Path)
	var warmer *promptcache.Warmer
	if replay == nil {
		warmer = startCacheWarming(rt, runner, client, values)
	}
	ok = true
	quit := func() {
		if warmer != nil {
			// No refresh outlives the session.
			warmer.Stop("pi left the session")
			warmer.Wait()
		}
		sh.Shutdown(ctx, abi.SessionReasonQuit, rt.Transcript().Path, "")
		closeAll()
	}
	return &liveSession{noModel: noModel, rt: rt, world: w, replay: replay, gate: gate, mcp: mcpm, close: quit, hook: sh, warnings: warnings, warmer: warmer}, nil
}

// sessionRoute is the route for a continued session (-c, -r, --session):
// with no model named, it goes on with the model and thinking level the
// session last used, as the established harness does: its last
// model_change entry or assistant message, and its last
// thinking_level_change entry, on the active branch. A model that is no
// longer configured leaves the usual choice, def.
func (a *app) sessionRoute(l *resources.Loaded, r *runFlags, tr *session.Transcript, def provider.Route) provider.Route {
	if r.model != "" || r.provider != "" {
		return def
	}
	rr := *r
	prov, model := lastModel(tr.Branch())
	if model != "" {
		rr.provider, rr.model = prov, model
	}
	if r.thinking == "" {
		rr.thinking = lastThinking(tr.Branch())
	}
	if rr.model == "" && rr.thinking == "" {
		return def
	}
	if route, err := a.route(l, &rr); err == nil {
		return route
	}
	return def
}

// lastThinking is the thinking level of a session's last
// thinking_level_change entry, or "".
func lastThinking(branch []session.Entry) string {
	for i := len(branch) - 1; i >= 0; i-- {
		if e := branch[i]; e.Type == session.TypeThinkingChange && e.ThinkingLevel != "" {
			return e.ThinkingLevel
		}
	}
	return ""
}

// lastModel is the provider and model a session last used: the newest
// model_change entry or assistant message with both named (not a replay).
func lastModel(branch []session.Entry) (prov, model string) {
	for i := len(branch) - 1; i >= 0; i-- {
		e := branch[i]
		switch {
		case e.Type == session.TypeMessage && e.Message != nil && e.Message.Role == "assistant":
			if e.Message.Provider != "" && e.Message.Model != "" && e.Message.Provider != "replay" {
				return e.Message.Provider, e.Message.Model
			}
		case e.Type == session.TypeModelChange && e.Provider != "" && e.ModelID != "":
			return e.Provider, e.ModelID
		}
	}
	return "", ""
}
