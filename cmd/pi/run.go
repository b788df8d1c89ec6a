package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/piwasm/pi/internal/lazyre"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/piwasm/pi/core/agent"
	"github.com/piwasm/pi/core/prompt"
	"github.com/piwasm/pi/core/provider"
	"github.com/piwasm/pi/core/resources"
	"github.com/piwasm/pi/core/session"
	"github.com/piwasm/pi/core/termtext"
	"github.com/spf13/pflag"
)

// runFlags are the flags of a model run: the established harness's
// command line (pi [options] [@files...] [messages...]).
type runFlags struct {
	print       bool
	model       string
	provider    string
	apiKey      string
	thinking    string
	mode        string
	listModels  string
	version     bool
	dryRun      bool
	sessionFile string
	cont        bool
	resume      bool
	noSession   bool
	noExpand    bool
	maxTokens   int
	timeout     time.Duration
	piEvents    bool
	transcript  bool
	sandbox     sandboxFlags
	fullscreen  bool
	// tuiChosen: --tui-mode or --fullscreen decided the drawing mode
	// (else the tuiMode setting does).
	tuiChosen  bool
	sessionDir string
	models     string
	noMCP      bool
	sess       sessionFlags
	peer       peerFlags
}

func (r *runFlags) register(fs *pflag.FlagSet) {
	fs.BoolVarP(&r.print, "print", "p", false, "run the messages one after another, print the final reply, exit")
	fs.StringVar(&r.model, "model", "", "model to use: provider/id or id (default: the first in models.json); replay:FILE plays back a recorded session")
	fs.StringVar(&r.provider, "provider", "", "look the model up in this provider only")
	fs.StringVar(&r.apiKey, "api-key", "", "API key for this run (not stored)")
	fs.StringVar(&r.models, "models", "", "comma-separated model patterns (globs, ids, fuzzy; optional :level) to start with and cycle through with ctrl+p")
	fs.StringVar(&r.thinking, "thinking", "", "thinking level: off, minimal, low, medium, high, xhigh or max (overrides a --model NAME:LEVEL suffix)")
	fs.StringVar(&r.mode, "mode", "text", "output: text (the final reply), json (the session header, then one event per line) or rpc (commands on stdin, responses and events on stdout)")
	fs.StringVar(&r.listModels, "list-models", "", "list the configured models (optionally matching SEARCH) and exit")
	fs.Lookup("list-models").NoOptDefVal = "\x00all"
	fs.BoolVarP(&r.version, "version", "v", false, "print pi's version and exit")
	fs.BoolVar(&r.dryRun, "dry-run", false, "print the exact request body that would be sent, and send nothing")
	fs.StringVar(&r.sessionFile, "session", "", "append to (or create) this session file")
	fs.BoolVarP(&r.cont, "continue", "c", false, "continue the latest session of this directory")
	fs.BoolVarP(&r.resume, "resume", "r", false, "pick a session to resume (needs the interactive session)")
	fs.BoolVar(&r.noSession, "no-session", false, "keep no session file")
	fs.StringVar(&r.sessionDir, "session-dir", "", "keep and look for sessions in DIR (over PI_CODING_AGENT_SESSION_DIR and settings sessionDir)")
	r.sess.register(fs)
	r.peer.register(fs)
	fs.BoolVar(&r.noExpand, "no-expand", false, "do not expand /skill: and /template input")
	fs.IntVar(&r.maxTokens, "max-tokens", 0, "cap each reply in tokens (default: the model's setting)")
	fs.DurationVar(&r.timeout, "timeout", 30*time.Minute, "give up on the whole run after this long")
	fs.BoolVar(&r.fullscreen, "fullscreen", false, "draw the interactive session in the whole window instead of the terminal's scrollback")
	fs.BoolVar(&r.transcript, "transcript", false, "in text mode, show the run as it happens on stdout: messages, tool calls and the start of their results")
	fs.BoolVar(&r.noMCP, "no-mcp", false, "connect no MCP servers (mcp.json) in this run")
	fs.BoolVar(&r.piEvents, "pi-events", false, "in JSON mode, also emit pi's own records (the prompt with its sources, the input funnel, replay mismatches)")
}

func (a *app) cmdRun(ctx context.Context, args []string) error {
	fs := pflag.NewFlagSet("pi", pflag.ContinueOnError)
	var c common
	c.register(fs)
	var r runFlags
	r.register(fs)
	r.sandbox.register(fs)
	var extFlags []extFlag
	if unknownLongFlag(fs, args) {
		// Perhaps an extension's flag: read the manifests of the
		// extensions this run would load (without running any) and
		// take their flags too.
		extFlags, _ = a.extensionFlags(preParse(args))
		registerExtFlags(fs, extFlags)
		if err := checkExtFlagValues(args, extFlags); err != nil {
			return err
		}
	}
	rest, err := c.parse(fs, args)
	if errors.Is(err, pflag.ErrHelp) {
		a.writeHelp(&c)
		return errHelp
	}
	c.extFlags = extFlagValues(fs, extFlags)
	if err != nil {
		return err
	}
	if r.version {
		_, err := fmt.Fprintf(a.stdout, "%s\n", piVersion())
		return err
	}
	if fs.Changed("list-models") {
		return a.listModels(&c, r.listModels)
	}
	if done, err := r.peer.apply(a, &r, fs, rest); done {
		return err
	}
	if r.mode != "text" && r.mode != "json" && r.mode != "rpc" {
		return usagef("--mode %q: want text, json or rpc", r.mode)
	}
	if r.cont && r.sessionFile != "" {
		return usagef("--continue and --session contradict each other")
	}
	if err := r.checkSessionFlags(); err != nil {
		return err
	}
	if r.resume && !a.wantsUI(&r) {
		return usagef("--resume needs the interactive session; use --continue or --session FILE")
	}
	if r.provider != "" && r.model == "" {
		return usagef("--provider needs --model")
	}
	if !hasUI && a.wantsUI(&r) {
		// The flags are known and checked, and nothing has happened yet:
		// the first point this build can leave the session to pi-ui.
		return a.handOverUI()
	}
	if r.mode == "rpc" {
		if len(rest) > 0 {
			return usagef("RPC mode takes no messages or @files on the command line; send them with the prompt command")
		}
		if r.dryRun {
			return usagef("--dry-run does not apply to RPC mode")
		}
		return a.runRPC(ctx, &c, &r)
	}
	var files, messages []string
	for _, arg := range rest {
		if strings.HasPrefix(arg, "@") && len(arg) > 1 {
			files = append(files, arg[1:])
			continue
		}
		messages = append(messages, arg)
	}
	first, images, err := a.initialMessage(files, messages)
	if err != nil {
		return err
	}
	if a.wantsUI(&r) {
		var inputs []session.Input
		if first != nil {
			inputs = append(inputs, session.Input{Text: *first, Images: images})
			for _, m := range messages[1:] {
				inputs = append(inputs, session.Input{Text: m})
			}
		}
		return a.runUI(ctx, &c, &r, inputs)
	}
	if first == nil {
		if len(args) == 0 {
			writeMainHelp(a.stderr)
			return &usageError{msg: "nothing to send"}
		}
		return usagef("nothing to send: give a message (pi -p \"fix the failing test\"), pipe text in, or see pi --help")
	}
	if len(messages) > 0 {
		messages = messages[1:]
	}
	inputs := []session.Input{{Text: *first, Images: images}}
	for _, m := range messages {
		inputs = append(inputs, session.Input{Text: m})
	}
	return a.runAgent(ctx, &c, &r, inputs)
}

// initialMessage builds the first message as the established harness
// does: piped stdin, then the @files, then the first message, joined with
// nothing in between. nil means there is nothing to send.
func (a *app) initialMessage(files, messages []string) (*string, []prompt.Block, error) {
	var parts []string
	if !a.isTerminal && a.stdin != nil {
		data, err := io.ReadAll(io.LimitReader(a.stdin, maxStdin+1))
		if err != nil {
			return nil, nil, fmt.Errorf("read standard input: %w", err)
		}
		if len(data) > maxStdin {
			return nil, nil, fmt.Errorf("standard input is over %d MiB; pass a file with @path or let the agent read it", maxStdin>>20)
		}
		if len(data) > 0 {
			parts = append(parts, string(data))
		}
	}
	text, images, err := attachFiles(a.wd, a.home, files)
	if err != nil {
		return nil, nil, err
	}
	if text != "" {
		parts = append(parts, text)
	}
	if len(messages) > 0 {
		parts = append(parts, messages[0])
	}
	if len(parts) == 0 && len(images) == 0 {
		return nil, nil, nil
	}
	s := strings.Join(parts, "")
	return &s, images, nil
}

// maxStdin bounds what pi reads from a pipe into the first message.
const maxStdin = 64 << 20

// runAgent runs the inputs one after another in one session and prints
// the outcome the way the mode asks.
func (a *app) runAgent(ctx context.Context, c *common, r *runFlags, inputs []session.Input) error {
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	ls, err := a.openLive(ctx, c, r, nil)
	if err != nil {
		return err
	}
	defer ls.close()
	rt, w, replay := ls.rt, ls.world, ls.replay
	if inputs, err = fitImages(inputs, w.loaded.Values); err != nil {
		return err
	}
	out := &eventWriter{w: a.stdout, on: r.mode == "json"}
	var plain *plainTranscript
	if r.transcript && !out.on {
		plain = newPlainTranscript(a.stdout)
	}
	if out.on && !r.dryRun {
		out.emit(rt.Transcript().Header)
	}
	rt.Subscribe(func(e agent.Event) {
		if e.Type == agent.AutoRetryStart && !out.on {
			fmt.Fprintf(a.stderr, "pi: %s; retrying in %s (attempt %d of %d)\n", esc(e.ErrorMessage), (time.Duration(e.DelayMs) * time.Millisecond).Round(100*time.Millisecond), e.Attempt, e.MaxAttempts)
			return
		}
		if e.Type == agent.SummarizationRetryScheduled && !out.on {
			fmt.Fprintf(a.stderr, "pi: summary request failed: %s; retrying in %s (attempt %d of %d)\n", esc(e.ErrorMessage), (time.Duration(e.DelayMs) * time.Millisecond).Round(100*time.Millisecond), e.Attempt, e.MaxAttempts)
			return
		}
		if out.on { // checked here: handing e to emit as an any copies it to the heap, every delta
			out.emit(e)
		}
		if plain != nil {
			plain.event(e)
		}
	})

	var last *session.Turn
	var runErr error
	for _, in := range inputs {
		run := rt.Run
		if r.dryRun {
			run = rt.DryRun
		}
		turn, err := run(in)
		printDiagnostics(a.stderr, runDiagnostics(w.diagnostics(), c.verbose))
		if turn != nil {
			a.piRecords(out, r, turn)
		}
		if err != nil {
			runErr = err
			if turn != nil && turn.Final != nil {
				last = turn
			}
			break
		}
		if r.dryRun {
			if out.on {
				out.emit(map[string]any{"type": "request", "body": json.RawMessage(turn.Body)})
			} else if _, err := fmt.Fprintf(a.stdout, "%s\n", a.display(string(turn.Body))); err != nil {
				return err
			}
			continue
		}
		if !turn.Input.Send {
			if !out.on && turn.Input.Show != "" {
				fmt.Fprintln(a.stdout, a.display(turn.Input.Show))
			}
			continue
		}
		last = turn
	}
	if replay != nil {
		for _, m := range replay.Mismatches() {
			fmt.Fprintf(a.stderr, "pi: replay: %s\n", termtext.EscapeLines(m.String()))
		}
		if out.on && r.piEvents {
			out.emit(map[string]any{"type": "pi_replay", "mismatches": replay.Mismatches(), "unplayed": replay.Remaining()})
		}
	}
	if !out.on && plain == nil && last != nil && last.Final != nil {
		// The text so far is printed whatever ended the reply (an error,
		// an abort, the token limit): the exit code and the note on
		// stderr say it is incomplete.
		for _, b := range last.Final.Content.Blocks {
			if b.Type == "text" && b.Text != "" {
				fmt.Fprintf(a.stdout, "%s\n", a.display(b.Text))
			}
		}
	}
	return runOutcome(runErr, ctx)
}

// piRecords emits pi's own records in JSON mode when asked (--pi-events):
// the prompt with its sources, what the input funnel made of the line.
func (a *app) piRecords(out *eventWriter, r *runFlags, t *session.Turn) {
	if !out.on || !r.piEvents {
		return
	}
	out.emit(map[string]any{"type": "pi_input", "kind": t.Input.Kind, "name": t.Input.Name, "show": t.Input.Show, "send": t.Input.Send})
	if t.Prepared != nil {
		ev := map[string]any{"type": "pi_prompt", "sections": t.Prepared.Rendered.Sections, "text": t.Prepared.Rendered.Text}
		if t.Prepared.Forced != nil {
			ev["forced"] = t.Prepared.Forced
		}
		out.emit(ev)
	}
}

// runOutcome turns how a run ended into the error the exit code comes
// from, with the established harness's wording where it has one.
func runOutcome(err error, ctx context.Context) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, agent.ErrLength):
		return errors.New("the reply was cut off: the model reached its output-token limit")
	case errors.Is(err, agent.ErrAborted):
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return errors.New("aborted: the run took longer than --timeout")
		}
		return errAborted
	}
	return err
}

// errAborted is a run stopped by the user or a signal.
var errAborted = errors.New("aborted")

// route resolves --provider/--model/--thinking/--api-key the way the
// established harness does (exact, then fuzzy, ":level" suffixes). A dry
// run without any configured model uses a stand-in OpenAI-shaped route so
// the body can still be shown.
func (a *app) route(l *resources.Loaded, r *runFlags) (provider.Route, error) {
	models, err := provider.LoadModels(filepath.Join(l.AgentDir, "models.json"), a.getenv)
	if err != nil {
		return provider.Route{}, err
	}
	if models.Stored, err = a.storedKeys(l.AgentDir); err != nil {
		return provider.Route{}, err
	}
	model := r.model
	if model == "" && r.models != "" {
		// --models without --model starts with the first model in scope.
		if scope, _ := scopeModels(splitPatterns(r.models), models.Specs()); len(scope) > 0 {
			model = scope[0]
		}
	}
	s := modelSettings(l.Values)
	s.Provider, s.Model, s.Thinking, s.APIKey = r.provider, model, r.thinking, r.apiKey
	sel, err := models.Select(s)
	if err == nil {
		if sel.Warning != "" {
			fmt.Fprintf(a.stderr, "pi: %s\n", esc(sel.Warning))
		}
		sel.Route.BlockImages = l.Values.Bool("images.blockImages")
		return sel.Route, nil
	}
	if r.dryRun && !models.Found && r.model == "" {
		return provider.Route{Provider: "openai", ModelID: "unconfigured", API: provider.APIOpenAICompletions, BaseURL: provider.DefaultOpenAIBaseURL, SystemInHistory: true}, nil
	}
	return provider.Route{}, fmt.Errorf("model: %w", err)
}

func (a *app) openSession(dir, cwd string, r *runFlags) (*session.Transcript, error) {
	tr, err := a.openSessionFile(dir, cwd, r)
	if err != nil || !r.sess.name.set || r.dryRun {
		return tr, err
	}
	if err := tr.SetName(r.sess.name.value); err != nil {
		tr.Close()
		return nil, err
	}
	return tr, nil
}

func (a *app) openSessionFile(dir, cwd string, r *runFlags) (*session.Transcript, error) {
	id, err := session.NewID()
	if err != nil {
		return nil, err
	}
	if r.sess.sessionID != "" {
		id = r.sess.sessionID
	}
	header := session.Header{ID: id, Cwd: cwd, Timestamp: time.Now().UTC().Format("2006-01-02T15:04:05.000Z"), ParentSession: r.sess.parent}
	if r.noSession {
		return session.Create("", header)
	}
	if r.sess.fork != "" {
		if r.dryRun {
			src, err := a.resolveSessionArg(dir, cwd, r.sess.fork)
			if err != nil {
				return nil, err
			}
			return session.Load(src.Path)
		}
		return a.forkSession(dir, cwd, r)
	}
	path := r.sessionFile
	if path != "" && !session.LooksLikePath(path) {
		if path, err = a.sessionByID(dir, cwd, path); err != nil {
			return nil, err
		}
	}
	if r.cont {
		if path, err = session.LatestIn(dir, cwd); err != nil {
			return nil, err
		}
	}
	if r.sess.sessionID != "" && path == "" {
		if f, ok := session.FindExact(dir, cwd, r.sess.sessionID); ok {
			path = f.Path
		} else if !r.dryRun {
			fmt.Fprintf(a.stderr, "pi: warning: no session of this directory has id '%s'; starting a new session with that id\n", esc(r.sess.sessionID))
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
	return session.Create(session.NewPathIn(dir, id, time.Now()), header)
}

// eventWriter prints JSON lines for --mode json: one record per line, LF
// only, without HTML escaping (as the established harness writes them).
// Events come from tool goroutines too, so writes are serialised.
type eventWriter struct {
	mu sync.Mutex
	w  io.Writer
	on bool
}

func (e *eventWriter) emit(v any) {
	if !e.on {
		return
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.w.Write(b.Bytes())
}

// version is pi's version; release builds set it with -ldflags "-X main.version=...".
var version = "0.3.0"

// pseudoVersion matches the commit stamp of a pseudo-version
// (v0.0.0-20261205085100-49c251a1b2c3).
var pseudoVersion = lazyre.New(`\d{14}-[0-9a-f]{12}`)

// piVersion is the module version `go install …/cmd/pi@vX.Y.Z` recorded in
// the build info, so an installed pi names the release it was built from;
// a build from a checkout (devel, or a pseudo-version git stamps) reports
// version.
func piVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		v := info.Main.Version
		if v != "" && v != "(devel)" && !pseudoVersion().MatchString(v) && !strings.HasSuffix(v, "+dirty") {
			return strings.TrimPrefix(v, "v")
		}
	}
	return version
}

// listModels prints the models pi can use (those with a key), optionally
// those matching search, as a table.
func (a *app) listModels(c *common, search string) error {
	models, err := provider.LoadModels(filepath.Join(a.agentDir(), "models.json"), a.getenv)
	if err != nil {
		return err
	}
	if search == "\x00all" {
		search = ""
	}
	list := models.ListModels(search)
	if len(list) == 0 {
		if search != "" {
			fmt.Fprintf(a.stdout, "No configured model matches %q.\n", search)
		} else {
			fmt.Fprintf(a.stdout, "No model is usable: list one in %s or set an API key (OPENAI_API_KEY, ANTHROPIC_API_KEY, ...).\n", esc(filepath.Join(a.agentDir(), "models.json")))
		}
		return nil
	}
	_, err = io.WriteString(a.stdout, provider.FormatModelList(list))
	return err
}
