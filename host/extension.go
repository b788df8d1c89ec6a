package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/piwasm/pi/abi"
	"github.com/piwasm/pi/core/diag"
	"github.com/piwasm/pi/core/hooks"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// FetchMap returns a hooks.Fetcher serving the entries of m. A fetcher
// supplies the lazily fetched keys of one call (abi.KeySkills,
// abi.KeySystemPrompt, abi.KeyContextPrefix+path, abi.KeySectionPrefix+name),
// only when the guest asks for a key, at most once per key and call;
// ok=false answers "not found", and nil means no lazy keys.
func FetchMap(m map[string][]byte) hooks.Fetcher {
	return func(k string) ([]byte, bool) { v, ok := m[k]; return v, ok }
}

// Extension is a loaded extension: its manifest, its compiled module and
// (at most) one live instance, reused across calls. Calls to one extension
// are serialized; different extensions may be called concurrently.
type Extension struct {
	rt     *Runtime
	pkg    *Package
	limits abi.Limits
	caps   abi.Capabilities // granted
	config []byte           // manifest config as JSON, with the user's settings merged over it
	// extismConfig is config as Extism's config_get serves it, with the
	// flags' values under "flag:<name>".
	extismConfig map[string][]byte
	// flags is the flags' values as a JSON object (the fetch key
	// "flags"; part of the memo identity).
	flags       []byte
	commands    []abi.CommandInfo
	exports     []string
	compileTime time.Duration

	// wrt is the extension's own wazero runtime (its memory limit is a
	// runtime setting); it holds the WASI, Extism kernel and pi host
	// modules and the compiled guest. Nil until compiled.
	wrt        wazero.Runtime
	compiled   wazero.CompiledModule
	rcfg       wazero.RuntimeConfig
	compileErr error // set when a compilation ran over its time

	// ui counts the dialogs and notifications it showed lately.
	ui uiBudget

	mu      sync.Mutex
	inst    *instance
	call    *callState // the call in progress (host functions read it)
	live    *instance  // the instance host functions work on
	closed  bool
	retired int
}

// Name returns the extension's name.
func (e *Extension) Name() string { return e.pkg.Manifest.Name }

// Manifest returns the parsed manifest.
func (e *Extension) Manifest() abi.Manifest { return e.pkg.Manifest }

// Dir returns the package directory.
func (e *Extension) Dir() string { return e.pkg.Dir }

// SHA256 returns the hex SHA-256 of the module.
func (e *Extension) SHA256() string { return e.pkg.SHA256 }

// Size returns the module's size in bytes.
func (e *Extension) Size() int { return e.pkg.Size }

// Handles reports whether the manifest declares hook.
func (e *Extension) Handles(hook string) bool { return e.pkg.Manifest.Handles(hook) }

// Failure returns the failure policy, abi.FailureSkip or abi.FailureAbort.
func (e *Extension) Failure() string { return e.pkg.Manifest.FailurePolicy() }

// Limits returns the effective per-call limits.
func (e *Extension) Limits() abi.Limits { return e.limits }

// Granted returns the capabilities in force (requested and granted).
func (e *Extension) Granted() abi.Capabilities { return e.caps }

// Commands returns the slash commands the extension offers: the manifest's
// list, or, when that is empty, what the module's pi_commands export
// reported at load.
func (e *Extension) Commands() []abi.CommandInfo { return e.commands }

// Imports returns what the module imports (host functions, WASI).
func (e *Extension) Imports() []Import { return e.pkg.Imports }

// Exports returns the module's exported function names, sorted.
func (e *Extension) Exports() []string { return e.exports }

// compile compiles the module (or loads it from the compilation cache),
// within the runtime's compile timeout and until ctx is canceled; wazero
// cannot stop a compilation, so one given up on finishes in the
// background and is discarded. The caller holds e.mu or owns e
// exclusively.
func (e *Extension) compile(ctx context.Context) error {
	if e.compileErr != nil {
		return e.compileErr // a compilation that ran over is not retried
	}
	ctx, cancel := e.rt.bound(ctx, 0)
	defer cancel()
	limit := e.rt.compileTimeout(e.pkg.Size)
	lock := e.rt.compileLock(e.pkg.SHA256)
	if err := ctx.Err(); err != nil {
		return err
	}
	select {
	case lock <- struct{}{}:
	default:
		wait := time.NewTimer(limit)
		select {
		case lock <- struct{}{}:
			wait.Stop()
		case <-ctx.Done():
			wait.Stop()
			return ctx.Err()
		case <-wait.C:
			return fmt.Errorf("waited %v for another compilation of this module", limit)
		}
	}
	timer := time.NewTimer(limit)
	defer timer.Stop()
	start := time.Now()
	wasm, release, err := e.pkg.compileBytes()
	if err != nil {
		<-lock
		return err
	}
	type result struct {
		rt  wazero.Runtime
		c   wazero.CompiledModule
		err error
	}
	done := make(chan result, 1)
	e.rt.compiles.Add(1)
	go func() {
		defer e.rt.compiles.Done()
		defer func() { <-lock }()
		// Only once wazero is done: a compilation given up on still
		// reads them.
		defer release()
		cctx := context.WithoutCancel(ctx)
		rt, c, err := e.compileIn(cctx, wasm)
		if err != nil && damagedCacheEntry(err) && e.rt.clearCompileCache() {
			// wazero fails on a damaged entry (cut short by a full disk,
			// say) instead of compiling again, and would fail so on every
			// later run: the cache is emptied and the module compiled anew.
			e.rt.log(e.Name(), "warn", "the compilation cache held a damaged entry; it was emptied and the module compiled again ("+trimErr(err).Error()+")")
			rt, c, err = e.compileIn(cctx, wasm)
		}
		done <- result{rt, c, err}
	}()
	abandon := func() {
		go func() {
			if r := <-done; r.rt != nil {
				r.rt.Close(context.Background())
			}
		}()
	}
	select {
	case r := <-done:
		e.compileTime = time.Since(start)
		if r.err != nil {
			return r.err
		}
		e.wrt, e.compiled = r.rt, r.c
		// wazero keeps copies of what it needs; the file's bytes would only
		// hold megabytes for the life of the process (read again, and
		// checked against the hash, should they ever be needed).
		e.pkg.wasm = nil
		return nil
	case <-ctx.Done():
		abandon()
		return ctx.Err()
	case <-timer.C:
		abandon()
		e.compileErr = fmt.Errorf("compiling took longer than %v; given up", limit)
		return e.compileErr
	}
}

// compileIn makes the extension's wazero runtime and compiles wasm in it;
// on failure the runtime is closed.
func (e *Extension) compileIn(ctx context.Context, wasm []byte) (wazero.Runtime, wazero.CompiledModule, error) {
	rt := wazero.NewRuntimeWithConfig(ctx, e.rcfg)
	c, err := e.instantiateHost(ctx, rt, wasm)
	if err != nil {
		rt.Close(ctx)
		return nil, nil, err
	}
	return rt, c, nil
}

// damagedCacheEntry reports whether err is wazero's failure to read an
// entry of its compilation cache (all its messages of that kind start
// so).
func damagedCacheEntry(err error) bool {
	return strings.Contains(err.Error(), "compilationcache:")
}

// checkExportsStatically finishes a lazy load: the module must export
// pi_abi_version and the function of every hook the manifest lists. The
// names are read from the binary; signatures are checked at the first call.
func (e *Extension) checkExportsStatically(diags []diag.Diagnostic) (*Extension, []diag.Diagnostic) {
	m := e.pkg.Manifest
	fail := func(kind, format string, args ...any) (*Extension, []diag.Diagnostic) {
		diags = append(diags, diag.Diagnostic{Kind: kind, Path: e.pkg.ModulePath, Extension: m.Name, Message: fmt.Sprintf(format, args...)})
		return nil, diags
	}
	if e.pkg.importsErr != nil {
		return fail(DiagCompile, "%v", e.pkg.importsErr)
	}
	names := append([]string(nil), e.pkg.exports...)
	sort.Strings(names)
	e.exports = names
	has := func(n string) bool {
		i := sort.SearchStrings(names, n)
		return i < len(names) && names[i] == n
	}
	if !has(abi.ExportABIVersion) {
		return fail(DiagExports, "missing export %s: not a pi extension module", abi.ExportABIVersion)
	}
	var missing []string
	for _, h := range m.Hooks {
		if x := abi.ExportFor(h); !has(x) {
			missing = append(missing, fmt.Sprintf("missing export %s (hook %s)", x, h))
		}
	}
	if len(m.Tools) > 0 && !has(abi.ExportTool) {
		missing = append(missing, fmt.Sprintf("missing export %s (the manifest declares tools)", abi.ExportTool))
	}
	if completes(m.Commands) && !has(abi.ExportCommandComplete) {
		missing = append(missing, fmt.Sprintf("missing export %s (a command declares completions)", abi.ExportCommandComplete))
	}
	if len(missing) > 0 {
		return fail(DiagExports, "%s", strings.Join(missing, "; "))
	}
	e.commands = m.Commands
	return e, diags
}

// readyLocked compiles the module and starts an instance if either is
// missing, checking the ABI version the module reports. The caller holds
// e.mu.
func (e *Extension) readyLocked(ctx context.Context) error {
	ctx, cancel := e.rt.bound(ctx, 0)
	defer cancel()
	if e.compiled == nil {
		if err := e.compile(ctx); err != nil {
			return fmt.Errorf("compile: %w", err)
		}
	}
	if e.inst != nil {
		return nil
	}
	inst, err := e.newInstance(ctx)
	if err == nil {
		var v int
		if v, err = inst.abiVersion(ctx, e.initTimeout()); err == nil && v != abi.Version {
			err = fmt.Errorf("module speaks ABI %d; this host speaks ABI %d", v, abi.Version)
		}
		if err != nil {
			inst.close()
		}
	}
	if err != nil {
		return err
	}
	e.inst = inst
	return nil
}

// warm makes the extension ready for a call ahead of time. An extension
// busy with a call is skipped (that call is making it ready), and failures
// are left for the next call to report.
func (e *Extension) warm(ctx context.Context) {
	if !e.mu.TryLock() {
		return
	}
	defer e.mu.Unlock()
	if !e.closed {
		_ = e.readyLocked(ctx)
	}
}

// Compiled reports whether the module has been compiled (always true after
// an eager load; after a lazy one, once the extension was first called).
func (e *Extension) Compiled() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.compiled != nil
}

// CompileTime returns how long compiling the module took at load (short
// when the compilation cache had it).
func (e *Extension) CompileTime() time.Duration { return e.compileTime }

// Retired returns how many instances were thrown away after failed calls.
func (e *Extension) Retired() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.retired
}

// Close releases the instance and the compiled module. Later calls fail
// with CauseUnavailable.
func (e *Extension) Close(ctx context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil
	}
	e.closed = true
	if e.inst != nil {
		e.inst.close()
		e.inst = nil
	}
	e.rt.forget(e)
	if e.wrt == nil {
		return nil
	}
	return e.wrt.Close(ctx)
}

// open compiles pkg, warms one instance and verifies its exports and ABI
// version.
func (r *Runtime) open(ctx context.Context, pkg *Package, g Grant, hasGrant bool) (*Extension, []diag.Diagnostic) {
	m := pkg.Manifest
	e := &Extension{rt: r, pkg: pkg, limits: m.Limits.Effective()}
	var diags []diag.Diagnostic
	report := func(kind, path, format string, args ...any) {
		diags = append(diags, diag.Diagnostic{Kind: kind, Path: path, Extension: m.Name, Message: fmt.Sprintf(format, args...)})
	}
	caps, missing, stale := effective(m.Capabilities, g, hasGrant, pkg.SHA256)
	e.caps = caps
	switch {
	case stale:
		report(DiagGrant, pkg.ModulePath, "the module changed since its grant (granted for sha256 %s, now %s); requested capabilities are not granted: %s",
			ShortSHA(g.SHA256), ShortSHA(pkg.SHA256), describeCaps(m.Capabilities))
	case !missing.Empty():
		report(DiagGrant, pkg.ManifestPath, "requested but not granted: %s (pass --grant %s for one run, or store the grant with pi ext install %s --yes)",
			describeCaps(missing), m.Name, pkg.Dir)
	}
	cfg, err := m.ConfigJSON()
	if err != nil {
		report(DiagManifest, pkg.ManifestPath, "%v", err)
		return nil, diags
	}
	if user, ok := r.cfg.ExtensionConfig[m.Name]; ok {
		merged, err := mergeConfig(cfg, user)
		if err != nil {
			report(DiagConfig, pkg.ManifestPath, "settings extensionConfig.%s not applied: %v", m.Name, err)
		}
		cfg = merged
	}
	e.config = cfg
	e.extismConfig = extismConfig(cfg)
	e.flags = e.flagValues(r.cfg.Flags[m.Name])

	e.rcfg = wazero.NewRuntimeConfig().
		WithCloseOnContextDone(true).
		WithMemoryLimitPages(uint32(e.limits.MemoryMiB) * 16).
		WithCompilationCache(r.cache)
	if pkg.importsErr != nil {
		report(DiagCompile, pkg.ModulePath, "%v", pkg.importsErr)
		return nil, diags
	}
	if r.cfg.Lazy && (len(m.Commands) > 0 || !m.Handles(abi.HookCommand)) {
		return e.checkExportsStatically(diags)
	}
	if err := e.compile(ctx); err != nil {
		report(DiagCompile, pkg.ModulePath, "%v", err)
		return nil, diags
	}
	fail := func(kind, format string, args ...any) (*Extension, []diag.Diagnostic) {
		report(kind, pkg.ModulePath, format, args...)
		e.Close(ctx)
		return nil, diags
	}

	inst, err := e.newInstance(ctx)
	if err != nil {
		return fail(DiagInstantiate, "%v", err)
	}
	e.inst = inst
	defs := inst.mod.ExportedFunctionDefinitions()
	for name := range defs {
		e.exports = append(e.exports, name)
	}
	sort.Strings(e.exports)
	hookSig := func(name string) error {
		d, ok := defs[name]
		if !ok {
			return fmt.Errorf("missing export %s", name)
		}
		if len(d.ParamTypes()) != 0 || len(d.ResultTypes()) != 1 || d.ResultTypes()[0] != api.ValueTypeI32 {
			return fmt.Errorf("export %s must have type () -> i32", name)
		}
		return nil
	}
	if err := hookSig(abi.ExportABIVersion); err != nil {
		return fail(DiagExports, "%v: not a pi extension module", err)
	}
	v, err := inst.abiVersion(ctx, e.initTimeout())
	if err != nil {
		return fail(DiagInstantiate, "%s: %v", abi.ExportABIVersion, err)
	}
	if v != abi.Version {
		return fail(DiagABI, "module speaks ABI %d; this host speaks ABI %d", v, abi.Version)
	}
	var missingExports []string
	for _, h := range m.Hooks {
		if err := hookSig(abi.ExportFor(h)); err != nil {
			missingExports = append(missingExports, fmt.Sprintf("%v (hook %s)", err, h))
		}
	}
	if len(m.Tools) > 0 {
		if err := hookSig(abi.ExportTool); err != nil {
			missingExports = append(missingExports, fmt.Sprintf("%v (the manifest declares tools)", err))
		}
	}
	if completes(m.Commands) {
		if err := hookSig(abi.ExportCommandComplete); err != nil {
			missingExports = append(missingExports, fmt.Sprintf("%v (a command declares completions)", err))
		}
	}
	if len(missingExports) > 0 {
		return fail(DiagExports, "%s", strings.Join(missingExports, "; "))
	}
	e.commands = m.Commands
	if m.Handles(abi.HookCommand) && len(m.Commands) == 0 {
		if err := hookSig(abi.ExportCommands); err != nil {
			return fail(DiagExports, "%v: the manifest lists no commands", err)
		}
		var list []abi.CommandInfo
		if err := e.Call(ctx, abi.ExportCommands, struct{}{}, nil, &list); err != nil {
			return fail(DiagInstantiate, "listing commands: %v", err)
		}
		for _, c := range list {
			probe := abi.Manifest{Name: m.Name, ABI: abi.Version, Hooks: []string{abi.HookCommand}, Commands: []abi.CommandInfo{c}}
			if errs := probe.Validate(); len(errs) > 0 {
				return fail(DiagExports, "pi_commands: %v", errs[0])
			}
		}
		e.commands = list
	}
	return e, diags
}

// flagValues puts the manifest's flags, as given or by default, into the
// Extism config (flag:<name>) and returns them as a JSON object for the
// fetch key "flags": a boolean flag as a JSON bool, a string flag as a
// string, a string flag without value or default left out.
func (e *Extension) flagValues(given map[string]string) []byte {
	if len(e.pkg.Manifest.Flags) == 0 {
		return nil // no flags: the memo identity stays what it was
	}
	obj := map[string]any{}
	for _, f := range e.pkg.Manifest.Flags {
		v, ok := given[f.Name]
		if !ok {
			v, ok = f.DefaultText()
		}
		if !ok {
			continue
		}
		if e.extismConfig == nil {
			e.extismConfig = map[string][]byte{}
		}
		e.extismConfig[abi.FlagConfigPrefix+f.Name] = []byte(v)
		if f.Type == abi.FlagBoolean {
			obj[f.Name] = v == "true"
		} else {
			obj[f.Name] = v
		}
	}
	b, _ := json.Marshal(obj) // map keys come out sorted
	return b
}

// completes reports whether a command completes its argument.
func completes(cmds []abi.CommandInfo) bool {
	for _, c := range cmds {
		if c.Completions {
			return true
		}
	}
	return false
}

// ShortSHA is the first 12 hex digits of a SHA-256, as messages show it.
func ShortSHA(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

func (e *Extension) timeout() time.Duration {
	return time.Duration(e.limits.TimeoutMs) * time.Millisecond
}

// initTimeout bounds instantiation and the runtime's own initialization,
// which for a standard-Go guest takes a few milliseconds.
func (e *Extension) initTimeout() time.Duration {
	return max(e.timeout(), time.Second)
}

// BeforeAgentStart calls the before_agent_start hook. fetch supplies the
// lazily fetched keys (context files, sections, skills, system prompt).
// The result's ops are validated for the hook.
//
// A SystemPrompt longer than abi.InlinePromptMax is moved out of the event
// and served to the guest on demand (abi.KeySystemPrompt); callers pass the
// whole prompt.
func (e *Extension) BeforeAgentStart(ctx context.Context, ev abi.BeforeAgentStartEvent, fetch hooks.Fetcher) (abi.BeforeAgentStartResult, error) {
	var res abi.BeforeAgentStartResult
	prompt := ev.SystemPrompt
	if len(prompt) > abi.InlinePromptMax {
		ev.SystemPrompt, ev.SystemPromptBytes = "", len(prompt)
	}
	user := fetch
	fetch = func(k string) ([]byte, bool) {
		if k == abi.KeySystemPrompt && prompt != "" {
			return []byte(prompt), true
		}
		if user == nil {
			return nil, false
		}
		return user(k)
	}
	err := e.hook(ctx, abi.HookBeforeAgentStart, ev, fetch, &res)
	if err == nil {
		if verr := abi.ValidateOps(abi.HookBeforeAgentStart, res.Ops); verr != nil {
			return abi.BeforeAgentStartResult{}, e.callErr(abi.HookBeforeAgentStart, CauseInvalidResult, verr)
		}
	}
	return res, err
}

// Assemble calls the system-prompt/assemble hook. An empty result means
// unchanged; apply a result with abi.ApplyAssemble.
//
// Callers pass sections with their whole text. On the wire, texts longer
// than abi.InlineTextMax are left out and served on demand
// (abi.KeySectionPrefix+name), so that a guest decodes only what it reads.
func (e *Extension) Assemble(ctx context.Context, ev abi.AssembleEvent) (abi.AssembleResult, error) {
	return e.AssembleWith(ctx, ev, nil)
}

// AssembleWith is Assemble with a fetcher for keys other than section
// texts (which the host serves from ev itself).
func (e *Extension) AssembleWith(ctx context.Context, ev abi.AssembleEvent, more hooks.Fetcher) (abi.AssembleResult, error) {
	var res abi.AssembleResult
	wire := ev
	wire.Sections = make([]abi.Section, len(ev.Sections))
	for i, s := range ev.Sections {
		if !s.TextInline() {
			return res, e.callErr(abi.HookAssemble, CauseUnavailable, fmt.Errorf("section %q: text shorter than its bytes", s.Name))
		}
		s.Bytes = len(s.Text)
		if len(s.Text) > abi.InlineTextMax {
			s.Text = ""
		}
		wire.Sections[i] = s
	}
	fetch := func(k string) ([]byte, bool) {
		if name, ok := strings.CutPrefix(k, abi.KeySectionPrefix); ok {
			for _, s := range ev.Sections {
				if s.Name == name {
					return []byte(s.Text), true
				}
			}
			return nil, false
		}
		if more != nil {
			return more(k)
		}
		return nil, false
	}
	err := e.hook(ctx, abi.HookAssemble, wire, fetch, &res)
	if err == nil {
		if verr := abi.ValidateOps(abi.HookAssemble, res.Ops); verr != nil {
			return abi.AssembleResult{}, e.callErr(abi.HookAssemble, CauseInvalidResult, verr)
		}
	}
	return res, err
}

// Input calls the input hook. An empty action is returned as
// abi.ActionContinue.
func (e *Extension) Input(ctx context.Context, ev abi.InputEvent) (abi.InputResult, error) {
	return e.InputWith(ctx, ev, nil)
}

// InputWith is Input with a fetcher (for the "file:" records of the files
// the guest reads; see FileRecord).
func (e *Extension) InputWith(ctx context.Context, ev abi.InputEvent, fetch hooks.Fetcher) (abi.InputResult, error) {
	var res abi.InputResult
	if err := e.hook(ctx, abi.HookInput, ev, fetch, &res); err != nil {
		return abi.InputResult{}, err
	}
	switch res.Action {
	case "":
		res.Action = abi.ActionContinue
	case abi.ActionContinue, abi.ActionTransform, abi.ActionHandled:
	default:
		return abi.InputResult{}, e.callErr(abi.HookInput, CauseInvalidResult, fmt.Errorf("unknown action %q", res.Action))
	}
	return res, nil
}

// Command runs a slash command of this extension (ev.Name is the
// extension's own command name).
func (e *Extension) Command(ctx context.Context, ev abi.CommandEvent) (abi.CommandResult, error) {
	return e.CommandWith(ctx, ev, nil)
}

// CommandWith is Command with a fetcher, as InputWith.
func (e *Extension) CommandWith(ctx context.Context, ev abi.CommandEvent, fetch hooks.Fetcher) (abi.CommandResult, error) {
	var res abi.CommandResult
	err := e.hook(ctx, abi.HookCommand, ev, fetch, &res)
	return res, err
}

// CompleteCommand asks the module for completions of a command's argument
// (export pi_command_complete). The person is typing, so the guest's run
// is bounded by hooks.CompletionTimeout; compiling and starting the
// module first (a lazily loaded extension's first call) is not counted,
// or the first answer would never come in time.
func (e *Extension) CompleteCommand(ctx context.Context, ev abi.CommandCompleteEvent) (abi.CommandCompleteResult, error) {
	var res abi.CommandCompleteResult
	e.mu.Lock()
	err := e.readyLocked(ctx)
	e.mu.Unlock()
	if err != nil {
		return res, e.callErr(hookOf(abi.ExportCommandComplete), CauseUnavailable, err)
	}
	ctx, cancel := context.WithTimeout(ctx, hooks.CompletionTimeout)
	defer cancel()
	err = e.Call(ctx, abi.ExportCommandComplete, ev, nil, &res)
	return res, err
}

func (e *Extension) hook(ctx context.Context, hook string, ev any, fetch hooks.Fetcher, res any) error {
	if !e.Handles(hook) {
		return e.callErr(hook, CauseUnavailable, fmt.Errorf("the manifest does not declare this hook"))
	}
	return e.Call(ctx, abi.ExportFor(hook), ev, fetch, res)
}

// Call calls export with event (encoded as JSON unless it is a
// json.RawMessage) and decodes the envelope's result into res (which may
// be nil). It is the general form behind the typed calls, for tools such as
// `pi ext test`; it does not validate ops. Errors are *CallError.
func (e *Extension) Call(ctx context.Context, export string, event any, fetch hooks.Fetcher, res any) error {
	hook := hookOf(export)
	var in []byte
	switch v := event.(type) {
	case json.RawMessage:
		in = v
	case []byte:
		in = v
	default:
		b, err := json.Marshal(event)
		if err != nil {
			return e.callErr(hook, CauseUnavailable, fmt.Errorf("encoding event: %w", err))
		}
		in = b
	}
	out, inst, err := e.invoke(ctx, hook, export, in, fetch)
	if err != nil {
		return err
	}
	if err := abi.DecodeEnvelope(out, res); err != nil {
		var ge *abi.GuestError
		if errors.As(err, &ge) {
			return e.callErr(hook, CauseGuestError, err)
		}
		e.retireIf(inst)
		return e.callErr(hook, CauseBadEnvelope, err)
	}
	return nil
}

func hookOf(export string) string {
	for _, h := range abi.Hooks {
		if abi.ExportFor(h) == export {
			return h
		}
	}
	return export
}

func (e *Extension) callErr(hook string, cause Cause, err error) *CallError {
	return &CallError{Extension: e.Name(), Hook: hook, Cause: cause, Err: err}
}

// retireIf retires inst after a malformed envelope, unless another call
// already replaced it.
func (e *Extension) retireIf(inst *instance) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.inst == inst {
		e.retireLocked()
	}
}

func (e *Extension) retireLocked() {
	if e.inst != nil {
		e.inst.close()
		e.inst = nil
		e.retired++
	}
}

// invoke runs one export on the live instance (instantiating one if
// needed) under the call's deadline and returns the raw envelope.
func (e *Extension) invoke(ctx context.Context, hook, export string, event []byte, fetch hooks.Fetcher) (out []byte, inst *instance, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil, nil, e.callErr(hook, CauseUnavailable, errors.New("extension is closed"))
	}
	if err := e.readyLocked(ctx); err != nil {
		return nil, nil, e.callErr(hook, CauseUnavailable, err)
	}
	inst = e.inst
	cs := &callState{event: event, fetch: fetch, maxOutput: e.limits.OutputKiB << 10, update: updateFrom(ctx)}
	e.call = cs
	defer func() { e.call = nil }()
	inst.stderr.reset()

	// The deadline can be paused while the guest waits for the person to
	// answer a question (see ask).
	cctx := newCallDeadline(ctx, e.timeout())
	defer cctx.cancel()
	cs.deadline = cctx
	e.live = inst
	rc, err := inst.call(cctx, export, event)
	if err == nil {
		// A stock PDK reports a handler's failure by setting Extism's
		// error: the guest is in a known state. An error set is a failure
		// whatever the export returns (as in Extism's hosts): applying the
		// output of a call that reported an error would let a policy that
		// failed this way pass.
		if msg := inst.k.errorText(); msg != "" {
			return nil, nil, e.callErr(hook, CauseGuestError, errors.New(msg))
		}
		if rc != 0 {
			err = fmt.Errorf("export returned %d", rc)
		}
	}
	if err != nil {
		cause, cerr := classify(cctx, err, inst.stderr.String(), e.timeout())
		e.retireLocked()
		return nil, nil, e.callErr(hook, cause, cerr)
	}
	if cs.tooLarge {
		e.retireLocked()
		return nil, nil, e.callErr(hook, CauseOutputTooLarge, fmt.Errorf("output of %d bytes exceeds the limit of %d", cs.outputLen, cs.maxOutput))
	}
	out = cs.out
	if !cs.outputSet {
		extOut := inst.k.output()
		if len(extOut) > cs.maxOutput {
			e.retireLocked()
			return nil, nil, e.callErr(hook, CauseOutputTooLarge, fmt.Errorf("output of %d bytes exceeds the limit of %d", len(extOut), cs.maxOutput))
		}
		out = extOut
	}
	if len(out) == 0 {
		e.retireLocked()
		return nil, nil, e.callErr(hook, CauseBadEnvelope, errors.New("no output"))
	}
	return out, inst, nil
}
