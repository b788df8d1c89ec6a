package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/piwasm/pi/core/export"
	"path/filepath"

	"github.com/piwasm/pi/core/provider"
	"github.com/piwasm/pi/core/runtime"
	"github.com/piwasm/pi/core/session"
	"github.com/piwasm/pi/rpc"
)

// runRPC builds the session and hands it to the RPC front end.
func (a *app) runRPC(ctx context.Context, c *common, r *runFlags) error {
	s := rpc.NewServer(a.stdout)
	c.extUI = s.ExtensionUI()
	c.extMode = "rpc"
	c.extError = s.ExtensionError
	ls, err := a.openLive(ctx, c, r, s)
	if err != nil {
		return err
	}
	defer ls.close()
	printDiagnostics(a.stderr, runDiagnostics(ls.world.diagnostics(), c.verbose))
	return s.Serve(ctx, a.rpcHost(ls, r), a.stdin, a.stderr)
}

// rpcHost connects the RPC front end to the files and models.json.
func (a *app) rpcHost(ls *liveSession, r *runFlags) rpc.Host {
	agentDir, cwd := ls.world.loaded.AgentDir, ls.world.loaded.Cwd
	ctx := ls.rt.Context()
	return rpc.Host{
		Runtime:      ls.rt,
		Cwd:          cwd,
		ScopedModels: func() ([]string, error) { return a.modelScope(ls, r) },
		NewSession: func(parent string) error {
			return ls.rt.Replace(ctx, runtime.ReplaceNew, "", func() (*session.Transcript, error) {
				return a.childTranscript(a.sessionsDir(ls.world.loaded, r.sessionDir), cwd, r.noSession, parent)
			})
		},
		Summarizer:    branchSummarizer(ls),
		ExportPalette: func() *export.Palette { return a.exportPalette(ls.world.loaded, &r.peer.themes) },
		MCP:           a.mcpRPC(ls.rt.Context(), ls),
		OpenSession: func(path string) error {
			return ls.rt.Replace(ctx, runtime.ReplaceResume, path, func() (*session.Transcript, error) {
				return session.OpenAppend(path)
			})
		},
		SetModel: func(prov, id string) (provider.Route, error) {
			route, err := a.resolveModel(agentDir, prov, id)
			if err != nil {
				return provider.Route{}, err
			}
			if r.apiKey != "" {
				route.APIKey = r.apiKey
			}
			ls.rt.SetRoute(route)
			return route, nil
		},
		Models: func() ([]provider.ModelInfo, error) {
			models, err := provider.LoadModels(filepath.Join(agentDir, "models.json"), a.getenv)
			if err != nil {
				return nil, err
			}
			return models.All(), nil
		},
	}
}

// resolveModel finds provider/modelId in models.json.
func (a *app) resolveModel(agentDir, prov, id string) (provider.Route, error) {
	if id == "" {
		return provider.Route{}, errors.New("set_model needs modelId")
	}
	spec := id
	if prov != "" {
		spec = prov + "/" + id
	}
	models, err := provider.LoadModels(filepath.Join(agentDir, "models.json"), a.getenv)
	if err != nil {
		return provider.Route{}, err
	}
	// A switch finds keys where start-up does: auth.json first.
	if models.Stored, err = a.storedKeys(agentDir); err != nil {
		return provider.Route{}, err
	}
	sel, err := models.Select(provider.Selection{Provider: prov, Model: id})
	if err != nil {
		return provider.Route{}, fmt.Errorf("Model not found: %s", spec)
	}
	return sel.Route, nil
}

// freshTranscript starts a new session file for cwd (in memory with
// --no-session).
func (a *app) freshTranscript(dir, cwd string, noSession bool) (*session.Transcript, error) {
	return a.openSession(dir, cwd, &runFlags{noSession: noSession})
}

// childTranscript is freshTranscript naming parent as the parent session.
func (a *app) childTranscript(dir, cwd string, noSession bool, parent string) (*session.Transcript, error) {
	return a.openSession(dir, cwd, &runFlags{noSession: noSession, sess: sessionFlags{parent: parent}})
}
