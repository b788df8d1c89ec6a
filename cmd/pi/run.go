package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/piwasm/pi/core/provider"
	"github.com/piwasm/pi/core/session"
	"github.com/spf13/pflag"
)

// runFlags are the flags of a model run (pi -p).
type runFlags struct {
	print       string
	model       string
	mode        string
	dryRun      bool
	sessionFile string
	cont        bool
	noSession   bool
	noExpand    bool
	maxTokens   int
	timeout     time.Duration
}

func (a *app) cmdRun(ctx context.Context, args []string) error {
	fs := pflag.NewFlagSet("pi", pflag.ContinueOnError)
	var c common
	c.register(fs)
	var r runFlags
	r.register(fs)
	rest, err := c.parse(fs, args)
	if err != nil {
		return a.helpOr(err, "pi -p TEXT [flags]", fs)
	}
	if !fs.Changed("print") {
		if len(rest) > 0 {
			return usagef("unknown command %q (see pi --help)", rest[0])
		}
		return usagef("nothing to do: give -p TEXT or a command (see pi --help)")
	}
	if len(rest) > 0 {
		return usagef("unexpected argument %q after -p TEXT", rest[0])
	}
	if strings.TrimSpace(r.print) == "" {
		return usagef("-p needs some text to send")
	}
	if r.mode != "text" && r.mode != "json" {
		return usagef("--mode %q: want text or json", r.mode)
	}
	if r.cont && r.sessionFile != "" {
		return usagef("--continue and --session contradict each other")
	}

	w, err := a.prepareWorld(ctx, &c)
	if err != nil {
		return err
	}
	defer w.ext.close(ctx)

	route, err := a.route(w.loaded.AgentDir, r.model, r.dryRun)
	if err != nil {
		return err
	}
	tr, err := a.openSession(w.loaded.AgentDir, w.loaded.Cwd, &r)
	if err != nil {
		return err
	}
	defer tr.Close()
	for _, p := range tr.Problems {
		fmt.Fprintf(a.stderr, "pi: warning: %s:%d: %s\n", esc(tr.Path), p.Line, esc(p.Message))
	}

	runner := &session.Runner{
		Transcript: tr, Dispatcher: w.ext.dispatcher, Loaded: w.loaded, Options: w.opts,
		Route: route, Client: &provider.Client{}, NoExpand: r.noExpand, MaxTokens: r.maxTokens,
	}
	events := &eventWriter{w: a.stdout, on: r.mode == "json"}
	onDelta := func(s string) {
		if events.on {
			events.emit(map[string]any{"type": "delta", "text": s})
			return
		}
		io.WriteString(a.stdout, a.display(s))
	}
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	turn, err := runner.Turn(ctx, r.print, r.dryRun, onDelta)
	printDiagnostics(a.stderr, w.diagnostics())
	if turn != nil && turn.Prepared != nil && events.on {
		ev := map[string]any{"type": "prompt", "sections": turn.Prepared.Rendered.Sections, "text": turn.Prepared.Rendered.Text}
		if turn.Prepared.Forced != nil {
			ev["forced"] = turn.Prepared.Forced
		}
		events.emit(ev)
	}
	if err != nil {
		if events.on {
			events.emit(map[string]any{"type": "error", "message": err.Error()})
		}
		return err
	}
	switch {
	case !turn.Input.Send:
		if events.on {
			events.emit(map[string]any{"type": "input", "kind": turn.Input.Kind, "show": turn.Input.Show})
			return nil
		}
		if turn.Input.Show != "" {
			fmt.Fprintln(a.stdout, a.display(turn.Input.Show))
		}
		return nil
	case r.dryRun:
		if events.on {
			events.emit(map[string]any{"type": "request", "body": json.RawMessage(turn.Body)})
			return nil
		}
		_, err := fmt.Fprintf(a.stdout, "%s\n", a.display(string(turn.Body)))
		return err
	}
	if events.on {
		events.emit(map[string]any{"type": "done", "text": turn.Response.Text, "stopReason": turn.Response.StopReason, "usage": turn.Response.Usage, "session": tr.Path})
		return nil
	}
	if !strings.HasSuffix(turn.Response.Text, "\n") {
		io.WriteString(a.stdout, "\n")
	}
	return nil
}

func (r *runFlags) register(fs *pflag.FlagSet) {
	fs.StringVarP(&r.print, "print", "p", "", "run TEXT as one prompt and print the reply")
	fs.StringVar(&r.model, "model", "", "model to use: provider/id or id (default: the first in models.json)")
	fs.StringVar(&r.mode, "mode", "text", "output: text (the reply) or json (the run's events as JSON lines)")
	fs.BoolVar(&r.dryRun, "dry-run", false, "print the exact request body that would be sent, and send nothing")
	fs.StringVar(&r.sessionFile, "session", "", "append to (or create) this session file")
	fs.BoolVarP(&r.cont, "continue", "c", false, "continue the latest session of this directory")
	fs.BoolVar(&r.noSession, "no-session", false, "keep no session file")
	fs.BoolVar(&r.noExpand, "no-expand", false, "do not expand /skill: and /template input")
	fs.IntVar(&r.maxTokens, "max-tokens", 0, "cap the reply length in tokens (default: the model's setting)")
	fs.DurationVar(&r.timeout, "timeout", 10*time.Minute, "give up on the model after this long")
}

// route resolves the model. A dry run without any configured model uses a
// stand-in OpenAI-shaped route so the body can still be shown.
func (a *app) route(agentDir, spec string, dryRun bool) (provider.Route, error) {
	models, err := provider.LoadModels(filepath.Join(agentDir, "models.json"), a.getenv)
	if err != nil {
		return provider.Route{}, err
	}
	route, err := models.Resolve(spec)
	if err == nil {
		return route, nil
	}
	if dryRun && !models.Found && spec == "" {
		return provider.Route{Provider: "openai", ModelID: "unconfigured", API: provider.APIOpenAICompletions, BaseURL: provider.DefaultOpenAIBaseURL, SystemInHistory: true}, nil
	}
	return provider.Route{}, fmt.Errorf("model: %w", err)
}

func (a *app) openSession(agentDir, cwd string, r *runFlags) (*session.Transcript, error) {
	id, err := session.NewID()
	if err != nil {
		return nil, err
	}
	header := session.Header{ID: id, Cwd: cwd, Timestamp: time.Now().UTC().Format(time.RFC3339Nano)}
	if r.noSession {
		return session.Create("", header)
	}
	path := r.sessionFile
	if r.cont {
		if path, err = session.Latest(agentDir, cwd); err != nil {
			return nil, err
		}
	}
	exists := false
	if path != "" {
		_, err := os.Stat(path)
		switch {
		case err == nil:
			exists = true
		case !errors.Is(err, os.ErrNotExist):
			return nil, fmt.Errorf("session %s: %w", path, err)
		}
	}
	switch {
	case r.dryRun && exists:
		// A dry run reads the session but never writes to it, not even
		// to cut off a torn last line.
		return session.Load(path)
	case r.dryRun:
		return session.Create("", header)
	case exists:
		return session.OpenAppend(path)
	case path != "":
		return session.Create(path, header)
	}
	return session.Create(session.NewPath(agentDir, cwd, id, time.Now()), header)
}

// eventWriter prints JSON lines for --mode json.
type eventWriter struct {
	w  io.Writer
	on bool
}

func (e *eventWriter) emit(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	e.w.Write(append(b, '\n'))
}
