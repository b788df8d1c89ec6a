package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/piwasm/pi/core/mcp"
	"github.com/piwasm/pi/core/prompt"
	"github.com/piwasm/pi/core/resources"
	"github.com/piwasm/pi/core/sandbox"
	"github.com/piwasm/pi/core/session"
	"github.com/piwasm/pi/core/settings"
	"github.com/piwasm/pi/core/tool"
)

// mcpPaths are the configuration files for a loaded world.
func (a *app) mcpPaths(l *resources.Loaded) mcp.Paths {
	return mcp.Paths{AgentDir: l.AgentDir, ProjectDir: l.ProjectDir, Trusted: l.Trust.Trusted, Cwd: l.Cwd, Home: a.home}
}

// mcpLogMax is where mcp.log moves to mcp.log.1, as in the established harness.
const mcpLogMax = 5 << 20

// openMCPLog opens <agent dir>/mcp.log for appending, rotating it first
// when it has grown past 5 MB. A log that cannot be opened is no log.
func openMCPLog(agentDir string) io.WriteCloser {
	path := filepath.Join(agentDir, "mcp.log")
	if fi, err := os.Stat(path); err == nil && fi.Size() > mcpLogMax {
		_ = os.Rename(path, path+".1")
	}
	if err := os.MkdirAll(agentDir, 0o755); err != nil {
		return nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil
	}
	return f
}

// newMCPManager builds the manager for l's mcp.json files: stdio servers
// start through the sandbox helper under their own policy (derived from
// policy), tools join reg. Configuration problems go to warn. The caller
// starts and closes it.
func (a *app) newMCPManager(l *resources.Loaded, policy *sandbox.Policy, exe string, reg *tool.Registry, warn func(string), onDrop func(mcp.Status)) (*mcp.Manager, func()) {
	cfg := mcp.Load(a.mcpPaths(l))
	for _, p := range cfg.Problems {
		warn("mcp: " + p.String())
	}
	if len(cfg.Servers) == 0 {
		return nil, func() {}
	}
	log := openMCPLog(l.AgentDir)
	tmp := os.TempDir()
	auth := &mcp.AuthStore{Path: filepath.Join(l.AgentDir, mcp.AuthFile)}
	// Servers are third-party programs: they get the environment bash's
	// commands get, without the provider keys; their entry's env adds to it.
	var passEnv []string
	if policy != nil {
		passEnv = policy.PassEnv
	}
	opts := mcp.Options{
		Cwd: l.Cwd, Version: version, Getenv: a.getenv, Environ: a.keyEnviron(l.AgentDir, passEnv),
		Registry: reg, TempDir: tmp, OnDrop: onDrop,
		Auth: func(s *mcp.Server) string {
			tok, _ := auth.Token(context.Background(), s)
			return tok
		},
		Launch: func(s *mcp.Server, argv []string, tmp string) (*exec.Cmd, error) {
			if err := os.MkdirAll(mcp.StateDir(l.AgentDir, s.Name), 0o700); err != nil {
				return nil, fmt.Errorf("create the server's state directory: %w", err)
			}
			return mcp.ServerPolicy(policy, s, l.AgentDir, tmp).Program(exe, argv)
		},
	}
	if log != nil {
		opts.Log = log
	}
	m := mcp.NewManager(cfg, opts)
	return m, func() {
		m.Close()
		if log != nil {
			log.Close()
		}
	}
}

// mcpRefresh is the runner's Refresh for a session with MCP servers: it
// waits (bounded) for the servers whose tools can be declared, then adds
// the live MCP tools the command line's selection keeps to the prompt's
// tools and catalog.
func (a *app) mcpRefresh(m *mcp.Manager, reg *tool.Registry, c *common, v *settings.Settings, warn func(string)) func(ctx context.Context, o prompt.Options) prompt.Options {
	return func(ctx context.Context, o prompt.Options) prompt.Options {
		m.Wait(ctx, mcp.StartWait)
		for _, st := range m.NewProblems() {
			warn(mcpProblem(st))
		}
		if len(m.Tools()) == 0 {
			return o
		}
		selected, _, err := selectTools(reg, c, v)
		if err != nil {
			return o
		}
		have := map[string]bool{}
		for _, n := range o.Tools {
			have[n] = true
		}
		keep := map[string]bool{}
		for _, n := range selected {
			keep[n] = true
		}
		// In configuration order, after the built-in and extension tools.
		tools := append([]string(nil), o.Tools...)
		for _, n := range m.Tools() {
			if keep[n] && !have[n] {
				tools = append(tools, n)
			}
		}
		o.Tools = tools
		o.Catalog = catalog(reg)
		return o
	}
}

// mcpProblem is the one line that tells of a server's failure or lost
// connection.
func mcpProblem(st mcp.Status) string {
	first, _, more := strings.Cut(st.Error, "\n")
	if more {
		first += " (pi mcp list shows the rest)"
	}
	msg := fmt.Sprintf("mcp: server %q %s: %s", st.Name, st.State, first)
	if st.State == mcp.StateDisconnected {
		msg += "; it is started again when one of its tools is called next"
	}
	return msg
}

// startMCP connects the session's MCP servers in the background (unless
// --no-mcp) and makes each turn pick up their tools. The manager's close
// joins closers.
func (a *app) startMCP(w *prepared, r *runFlags, c *common, policy *sandbox.Policy, exe string, reg *tool.Registry, runner *session.Runner, closers *[]func()) *mcp.Manager {
	if r.noMCP || r.dryRun {
		return nil
	}
	warn := func(s string) { fmt.Fprintf(a.stderr, "pi: warning: %s\n", esc(s)) }
	// In the terminal UI, stderr is the screen: a server's failure or
	// lost connection is a notice there (and /mcp shows it), on stderr
	// otherwise (print, JSON and RPC mode).
	later := warn
	if a.wantsUI(r) {
		later = a.warner(c)
	}
	m, closeMCP := a.newMCPManager(w.loaded, policy, exe, reg, warn, func(st mcp.Status) { later(mcpProblem(st)) })
	if m == nil {
		return nil
	}
	*closers = append(*closers, closeMCP)
	m.Start()
	runner.Refresh = a.mcpRefresh(m, reg, c, w.loaded.Values, later)
	return m
}

// mcpCommand answers /mcp in a session: every server's state, tools and
// errors, or, for "reconnect NAME", that server connected again.
func (a *app) mcpCommand(ctx context.Context, m *mcp.Manager, args string) (string, error) {
	f := strings.Fields(args)
	var b strings.Builder
	switch {
	case len(f) == 0:
		// Servers still connecting are waited for, briefly: the answer
		// should say how they ended.
		ctx, cancel := context.WithTimeout(ctx, mcp.StartWait)
		defer cancel()
		m.WaitAll(ctx)
	case f[0] == "reconnect" && len(f) == 2:
		ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
		defer cancel()
		if err := m.Reconnect(ctx, f[1]); err != nil {
			return "", fmt.Errorf("reconnect %s: %v", f[1], err)
		}
		fmt.Fprintf(&b, "reconnected %s\n", f[1])
	default:
		return "", fmt.Errorf("usage: /mcp, or /mcp reconnect NAME")
	}
	servers := listServers(m.Status())
	writeMCPList(&b, servers, a.display)
	return strings.TrimRight(b.String(), "\n"), nil
}

// mcpHost is the UI's /mcp, or nil when the session has no MCP servers.
func (a *app) mcpHost(ctx context.Context, ls *liveSession) func(string) (string, error) {
	if ls.mcp == nil {
		return nil
	}
	return func(args string) (string, error) { return a.mcpCommand(ctx, ls.mcp, args) }
}

// mcpRPC answers RPC's mcp_list and mcp_reconnect: the servers in pi mcp
// list --json's shape, after reconnecting the one named, if any.
func (a *app) mcpRPC(ctx context.Context, ls *liveSession) func(string) (any, error) {
	if ls.mcp == nil {
		return nil
	}
	m := ls.mcp
	return func(reconnect string) (any, error) {
		ctx, cancel := context.WithTimeout(ctx, mcp.StartWait)
		defer cancel()
		if reconnect != "" {
			if err := m.Reconnect(ctx, reconnect); err != nil {
				return nil, fmt.Errorf("reconnect %s: %v", reconnect, err)
			}
		} else {
			m.WaitAll(ctx)
		}
		return map[string]any{"servers": listServers(m.Status())}, nil
	}
}
