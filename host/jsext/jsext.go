package jsext

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/piwasm/pi/core/diag"
	"github.com/piwasm/pi/host"
	"github.com/piwasm/pi/host/jsext/engine"
)

//go:embed shim/prelude.js
var prelude string

// Config configures a Runtime.
type Config struct {
	// AgentDir holds the bundle cache (<AgentDir>/cache/jsext) and the
	// engine's compilation cache (<AgentDir>/cache/wazero). Empty: no
	// on-disk caches.
	AgentDir string
	// ProjectRoot is the directory whose files an extension may read and
	// write without a grant (still within CheckWrite). Empty: none.
	ProjectRoot string
	// Cwd is the session's working directory (process.cwd(), ctx.cwd).
	Cwd string
	// Home is the user's home directory (os.homedir()).
	Home string
	// UI answers the extensions' dialogs (nil: default answers at once).
	UI host.UI
	// Log receives console output of extensions, tagged with the name.
	Log func(ext, level, msg string)
	// Mode is ctx.mode: "interactive", "print", "json" or "rpc".
	Mode string
	// HasUI is ctx.hasUI: someone can answer dialogs.
	HasUI bool
	// Exec runs a shell command line through pi's sandboxed bash (nil:
	// extensions cannot run commands).
	Exec func(ctx context.Context, req ExecRequest) (ExecResult, error)
	// Guard applies the sandbox's file rules to a resolved path, as for
	// the file tools: the read deny list (credentials) and the writable
	// roots. Nil: reads follow the grants only and writes stay in the
	// project.
	Guard func(write bool, resolved string) error
	// AskGrant, when not nil, asks the person whether the extension may
	// use a capability it has no grant for (kind: exec, files, network,
	// env; detail names what exactly); a yes is remembered for the run
	// and, through SaveGrant, pinned to the bundle's hash. Nil (print,
	// JSON and RPC mode): the use is refused with an error naming the
	// --grant to pass.
	AskGrant  func(ctx context.Context, ext, kind, detail string) bool
	SaveGrant func(ext string, g host.Grant)
	// Session serves ctx.sessionManager (nil: an empty session).
	Session func() SessionData
	// Actions carries out what extensions ask of the session (nil: each
	// such call is recorded as unsupported).
	Actions Actions
}

// ExecRequest is one command an extension runs.
type ExecRequest struct {
	Command string
	Cwd     string
	Timeout time.Duration
	Stdin   string
}

// ExecResult is what it gave.
type ExecResult struct {
	Stdout, Stderr string
	Code           int
	Killed         bool
}

// SessionData is the session as ctx.sessionManager reads it: the entries
// of the session file (the established format's JSON lines after the
// header), the header, the file and the current leaf.
type SessionData struct {
	File    string            `json:"file,omitempty"`
	Header  json.RawMessage   `json:"header,omitempty"`
	Entries []json.RawMessage `json:"entries"`
	LeafID  string            `json:"leafId,omitempty"`
	Name    string            `json:"name,omitempty"`
}

// Actions are the session changes extensions may ask for. Each returns an
// error when the running mode cannot do it.
type Actions interface {
	SendMessage(ext string, msg json.RawMessage, opts json.RawMessage) error
	SendUserMessage(ext string, content json.RawMessage, opts json.RawMessage) error
	AppendEntry(ext, customType string, data json.RawMessage) error
	SetSessionName(name string) error
	SetLabel(entryID, label string) error
}

// Options configure one extension's load.
type Options struct {
	// Name overrides the name (default: the file's base name without its
	// extension, or the directory's name).
	Name string
	// Grant is the stored or per-run grant of the extension (HasGrant:
	// one exists); a grant pinned to another bundle SHA-256 is stale.
	Grant    host.Grant
	HasGrant bool
	// Failure is the failure policy, "skip" (default) or "abort".
	Failure string
	// Flags are the values given on the command line for the flags the
	// extension registers (registerFlag), by name.
	Flags map[string]string
	// TimeoutMs is the guest time one call may use (default
	// DefaultTimeoutMs, at most MaxTimeoutMs); MemoryMiB the heap
	// (default DefaultMemoryMiB, at most MaxMemoryMiB).
	TimeoutMs int
	MemoryMiB int
}

// Limits of one extension. The load (evaluating the bundle and running
// the default export) gets LoadTimeoutMs.
const (
	DefaultTimeoutMs = 1000
	MaxTimeoutMs     = 5000
	LoadTimeoutMs    = 5000
	DefaultMemoryMiB = 32
	MaxMemoryMiB     = 48
)

// Runtime loads and runs JavaScript extensions; it owns the compiled
// engine shared by all of them. It is safe for concurrent use.
type Runtime struct {
	cfg Config

	once   sync.Once
	eng    *engine.Engine
	engErr error

	mu   sync.Mutex
	exts []*Extension
}

// NewRuntime prepares a runtime; the engine is compiled at the first Load.
func NewRuntime(_ context.Context, cfg Config) (*Runtime, error) {
	return &Runtime{cfg: cfg}, nil
}

func (r *Runtime) engine(ctx context.Context) (*engine.Engine, error) {
	r.once.Do(func() {
		dir := ""
		if r.cfg.AgentDir != "" {
			dir = filepath.Join(r.cfg.AgentDir, "cache", "wazero")
		}
		r.eng, r.engErr = engine.New(context.WithoutCancel(ctx), dir)
	})
	return r.eng, r.engErr
}

// Close releases every extension and the engine.
func (r *Runtime) Close(ctx context.Context) error {
	r.mu.Lock()
	exts := r.exts
	r.exts = nil
	r.mu.Unlock()
	for _, e := range exts {
		e.close(ctx)
	}
	if r.eng != nil {
		return r.eng.Close(ctx)
	}
	return nil
}

// Extensions returns the extensions loaded so far, in load order.
func (r *Runtime) Extensions() []*Extension {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.exts)
}

// Registry is what an extension registered when its default export ran.
type Registry struct {
	Events      []string      `json:"events"`
	Tools       []ToolInfo    `json:"tools"`
	Commands    []CommandInfo `json:"commands"`
	Flags       []FlagSpec    `json:"flags"`
	Unsupported []string      `json:"unsupported"`
}

// ToolInfo is a registered tool.
type ToolInfo struct {
	Name        string          `json:"name"`
	Label       string          `json:"label,omitempty"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	Snippet     string          `json:"promptSnippet,omitempty"`
	Guidelines  []string        `json:"promptGuidelines,omitempty"`
}

// CommandInfo is a registered command.
type CommandInfo struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Completions bool   `json:"completions"`
}

// FlagSpec is a registered flag.
type FlagSpec struct {
	Name        string          `json:"name"`
	Type        string          `json:"type"` // "boolean" or "string"
	Description string          `json:"description,omitempty"`
	Default     json.RawMessage `json:"default,omitempty"`
}

// Extension is one loaded JavaScript extension. Calls are serialized.
type Extension struct {
	rt     *Runtime
	name   string
	path   string
	entry  string
	bundle *Bundled
	opts   Options
	budget time.Duration

	mu       sync.Mutex
	vm       *engine.VM
	reg      Registry
	grant    host.Grant
	asked    map[string]bool // capability items refused once this run
	call     *callState
	restarts int
	used     map[string]bool // unsupported members, over all instances
}

// callState is what host requests of the call in progress need.
type callState struct {
	update    func(text string, details json.RawMessage)
	sends     []string // sendUserMessage texts during a command (non-nil there)
	questions int
}

// Name returns the extension's name.
func (e *Extension) Name() string { return e.name }

// Path returns the file or directory it was loaded from.
func (e *Extension) Path() string { return e.path }

// Dir returns the directory of its entry file.
func (e *Extension) Dir() string { return filepath.Dir(e.entry) }

// SHA256 returns the hex SHA-256 of the bundled script.
func (e *Extension) SHA256() string { return e.bundle.SHA256 }

// Shims lists the pi modules the bundle imports.
func (e *Extension) Shims() []string { return slices.Clone(e.bundle.Shims) }

// Registry returns what the extension registered.
func (e *Extension) Registry() Registry {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.reg
}

// Flags returns the flags the extension registered.
func (e *Extension) Flags() []FlagSpec { return e.Registry().Flags }

// Unsupported lists, sorted, the API members the extension used that pi
// does not honour (each degraded as the established harness degrades
// without a terminal).
func (e *Extension) Unsupported() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]string, 0, len(e.used))
	for k := range e.used {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Granted returns the grant in force (stale grants grant nothing).
func (e *Extension) Granted() host.Grant {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.grant
}

// MemoryUsage returns the instance's engine heap and linear memory.
func (e *Extension) MemoryUsage(ctx context.Context) (heap int64, linear uint32) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.vm == nil {
		return 0, 0
	}
	return e.vm.MemoryUsage(ctx)
}

// NameFor is the name an extension at path gets: the file's base name
// without its extension, or the directory's name (index.ts's directory for
// an index file given directly).
func NameFor(path string) string {
	base := filepath.Base(path)
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return base
	}
	stem := strings.TrimSuffix(base, filepath.Ext(base))
	if stem == "index" {
		return filepath.Base(filepath.Dir(path))
	}
	return stem
}

// Load bundles and starts the extension at path (see IsExtension): it runs
// the module's default export with pi's API and records what it
// registered. A failure is an error naming the file and the cause.
func (r *Runtime) Load(ctx context.Context, path string, opts Options) (*Extension, []diag.Diagnostic, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, nil, err
	}
	entry, err := Entry(abs)
	if err != nil {
		return nil, nil, err
	}
	name := opts.Name
	if name == "" {
		name = NameFor(abs)
	}
	cache := ""
	if r.cfg.AgentDir != "" {
		cache = filepath.Join(r.cfg.AgentDir, "cache", "jsext")
	}
	b, err := Bundle(ctx, entry, cache)
	if err != nil {
		return nil, nil, err
	}
	e := &Extension{rt: r, name: name, path: abs, entry: entry, bundle: b, opts: opts, asked: map[string]bool{}, used: map[string]bool{}}
	e.budget = time.Duration(DefaultTimeoutMs) * time.Millisecond
	if opts.TimeoutMs > 0 {
		e.budget = time.Duration(min(opts.TimeoutMs, MaxTimeoutMs)) * time.Millisecond
	}
	if opts.HasGrant && (opts.Grant.SHA256 == "" || opts.Grant.SHA256 == b.SHA256) {
		e.grant = opts.Grant
	}
	var diags []diag.Diagnostic
	if opts.HasGrant && opts.Grant.SHA256 != "" && opts.Grant.SHA256 != b.SHA256 {
		diags = append(diags, diag.Diagnostic{Kind: "warning", Path: abs, Extension: name,
			Message: fmt.Sprintf("extension %s changed since its grant was given (the grant is for another bundle); it runs without it until granted again", name)})
	}
	e.mu.Lock()
	err = e.start(ctx)
	e.mu.Unlock()
	if err != nil {
		e.close(ctx)
		return nil, diags, fmt.Errorf("%s: %w", abs, err)
	}
	r.mu.Lock()
	r.exts = append(r.exts, e)
	r.mu.Unlock()
	return e, diags, nil
}

// start makes a new instance, evaluates the prelude and the bundle and
// runs the default export. The caller holds e.mu.
func (e *Extension) start(ctx context.Context) error {
	eng, err := e.rt.engine(ctx)
	if err != nil {
		return err
	}
	heap := DefaultMemoryMiB
	if e.opts.MemoryMiB > 0 {
		heap = min(e.opts.MemoryMiB, MaxMemoryMiB)
	}
	vm, err := eng.NewVM(ctx, engine.Config{HeapBytes: heap << 20, Host: e.serve})
	if err != nil {
		return err
	}
	e.vm = vm
	load := time.Duration(LoadTimeoutMs) * time.Millisecond
	if err := vm.Eval(ctx, prelude, "pi:prelude.js", load); err != nil {
		return fmt.Errorf("pi's runtime did not start: %w", err)
	}
	if err := vm.Eval(ctx, string(e.bundle.Script), e.entry, load); err != nil {
		return describeFailure("evaluating the module", err)
	}
	flags := map[string]any{}
	for k, v := range e.opts.Flags {
		flags[k] = v
	}
	var reg Registry
	if err := e.dispatch(ctx, map[string]any{"kind": "load", "flags": flags}, load, &reg); err != nil {
		return describeFailure("running its default export", err)
	}
	e.reg = reg
	e.noteUnsupported(reg.Unsupported)
	// Boolean flags come as text from the command line.
	return nil
}

func (e *Extension) noteUnsupported(list []string) {
	for _, u := range list {
		e.used[u] = true
	}
}

func describeFailure(what string, err error) error {
	switch {
	case errors.Is(err, engine.ErrTimeout):
		return fmt.Errorf("%s ran past its time limit and was stopped", what)
	case errors.Is(err, engine.ErrMemory):
		return fmt.Errorf("%s ran out of memory (the limit is %d MiB)", what, DefaultMemoryMiB)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// reply is __pi_dispatch's answer.
type reply struct {
	OK    json.RawMessage `json:"ok"`
	Error string          `json:"error"`
}

// dispatch sends one message to the instance and decodes its answer into
// out. The caller holds e.mu.
func (e *Extension) dispatch(ctx context.Context, msg map[string]any, budget time.Duration, out any) error {
	if e.vm == nil || e.vm.Dead() != nil {
		// The last instance was retired (a trap, or stopped at its
		// deadline): a fresh one runs the default export again.
		if e.vm != nil {
			e.vm.Close(ctx)
			e.vm = nil
		}
		e.restarts++
		if err := e.start(ctx); err != nil {
			return fmt.Errorf("restarting after a failure: %w", err)
		}
	}
	msg["cwd"] = e.rt.cfg.Cwd
	if _, ok := msg["ctx"]; !ok {
		msg["ctx"] = e.ctxInfo()
	}
	in, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	s, err := e.vm.Call(ctx, "__pi_dispatch", in, budget, "__pi_idle")
	if err != nil {
		return err
	}
	var r reply
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		return fmt.Errorf("malformed answer from the extension's runtime: %w", err)
	}
	if r.Error != "" {
		return &engine.ScriptError{Message: r.Error}
	}
	if out != nil && len(r.OK) > 0 {
		if err := json.Unmarshal(r.OK, out); err != nil {
			return fmt.Errorf("malformed result: %w", err)
		}
	}
	return nil
}

func (e *Extension) ctxInfo() map[string]any {
	c := e.rt.config()
	return map[string]any{"mode": c.Mode, "hasUI": c.HasUI, "trusted": c.ProjectRoot != ""}
}

// refreshUnsupported asks the instance what it used since the load.
func (e *Extension) refreshUnsupported(ctx context.Context) {
	var r struct {
		Unsupported []string `json:"unsupported"`
	}
	if e.dispatch(ctx, map[string]any{"kind": "unsupported"}, e.budget, &r) == nil {
		e.noteUnsupported(r.Unsupported)
	}
}

func (e *Extension) close(ctx context.Context) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.vm != nil {
		e.vm.Close(ctx)
		e.vm = nil
	}
}

// IsExtension reports whether path is a JavaScript extension: a .ts, .mts,
// .js or .mjs file, or a directory without extension.yaml that holds
// index.ts or index.js.
func IsExtension(path string) bool {
	fi, err := os.Stat(path)
	if err != nil {
		return false
	}
	if !fi.IsDir() {
		return isScript(path)
	}
	if _, err := os.Stat(filepath.Join(path, "extension.yaml")); err == nil {
		return false
	}
	_, err = Entry(path)
	return err == nil
}

func isScript(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".ts", ".mts", ".js", ".mjs":
		return true
	}
	return false
}

// Entry returns the file to bundle for path: path itself for a file, the
// directory's index.ts or index.js otherwise.
func Entry(path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		if !isScript(path) {
			return "", fmt.Errorf("%s: not a TypeScript or JavaScript file (.ts, .mts, .js, .mjs)", path)
		}
		return path, nil
	}
	for _, n := range []string{"index.ts", "index.mts", "index.js", "index.mjs"} {
		p := filepath.Join(path, n)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: no index.ts or index.js in the directory", path)
}

// config returns the configuration as bound so far (see BindTools).
func (r *Runtime) config() Config {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cfg
}
