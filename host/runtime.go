package host

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/piwasm/pi/abi"
	"github.com/piwasm/pi/core/diag"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tetratelabs/wazero"
)

// Config configures a Runtime.
type Config struct {
	// AgentDir holds the compilation cache (<AgentDir>/cache/wazero).
	// Empty means no on-disk cache (modules are compiled in memory only).
	AgentDir string
	// ProjectRoot is the directory pi_read_file resolves paths against.
	// Empty means no file can be read.
	ProjectRoot string
	// Log receives guest log lines (pi_log and Extism's log functions)
	// tagged with the extension's name; level is "debug", "info", "warn" or
	// "error". Nil discards them.
	Log func(ext, level, msg string)
	// ExtensionConfig holds the user's config for extensions by name (from
	// settings.json's extensionConfig): an object whose keys replace the
	// manifest's config keys of the same name (null removes one). Guests
	// see the merged config under the fetch key "config" and through
	// Extism's config_get.
	ExtensionConfig map[string]json.RawMessage
	// Flags are the values given on the command line for extensions'
	// flags, by extension name, then flag name (the manifest's, not the
	// command line's): "true"/"false" for a boolean flag, the text for a
	// string flag. A flag not given has its manifest default. Guests read
	// them through config_get("flag:<name>") and the fetch key "flags".
	Flags map[string]map[string]string
	// Parallelism bounds concurrent compilations in Load (default
	// GOMAXPROCS).
	Parallelism int
	// Lazy defers compiling and instantiating each extension to its first
	// call. Load then checks only what it can without running code (the
	// manifest, grants, and that the module exports what the manifest
	// promises); the ABI version the module reports is checked at the first
	// call. A run whose hook results are all memoised never compiles at
	// all. Extensions that list their commands only through pi_commands are
	// still loaded eagerly.
	Lazy bool
	// CompileTimeout bounds compiling one module (default: see
	// compileTimeout). wazero cannot interrupt a compilation; one that runs
	// over is abandoned (it finishes in the background and is thrown away)
	// and the extension fails with a diagnostic.
	CompileTimeout time.Duration
	// UI answers the questions guests ask through pi_ui_select,
	// pi_ui_confirm, pi_ui_input and pi_ui_notify. Nil gives every question
	// its default answer at once and drops notifications.
	UI UI
}

// By default compiling a module may take compileBase plus compilePerMiB
// per MiB of module, at most compileMax: a legitimate Go guest of a few
// MiB compiles in seconds, and in under a minute on a two-core machine
// loaded many times over, while some small hostile modules take minutes.
const (
	compileBase   = 30 * time.Second
	compilePerMiB = 30 * time.Second
	compileMax    = 5 * time.Minute
)

// MaxModuleBytes caps the size of a module file pi reads.
const MaxModuleBytes = 64 << 20

// Runtime loads and runs extensions. It owns the compilation cache shared
// by every extension it loads. It is safe for concurrent use.
type Runtime struct {
	cfg   Config
	root  string // ProjectRoot with symlinks resolved
	cache wazero.CompilationCache
	// cacheDir is the compilation cache's directory ("" when the cache
	// is in memory).
	cacheDir string
	// digests remembers module hashes by file identity (nil without an
	// agent dir).
	digests *digestCache

	// base is canceled by Close: it stops warm-ups, compilations and
	// instantiations still in flight, so that shutting down never waits
	// on a guest.
	base context.Context
	stop context.CancelFunc
	// compiles counts compilations in flight, including those given up
	// on: the compilation cache is closed only after they finish.
	compiles sync.WaitGroup

	mu        sync.Mutex
	exts      []*Extension
	compiling map[string]chan struct{} // per module SHA-256, a lock that can be given up on

	prewarmOnce sync.Once
	misses      atomic.Int32 // pure extensions that had to run (see handler.missed)
}

// Prewarm compiles and instantiates, in the background and in load order,
// every extension that is not ready yet and runs on every turn (see
// runsEveryTurn), keeping one core for the caller.
// It runs at most once per runtime. pi calls it on the second memo miss of
// a run: a project that changed usually changes for every extension, and
// getting them ready in parallel beats compiling each when its turn comes.
func (r *Runtime) Prewarm(ctx context.Context) {
	r.prewarmOnce.Do(func() {
		r.mu.Lock()
		exts := append([]*Extension(nil), r.exts...)
		r.mu.Unlock()
		workers := max(1, runtime.GOMAXPROCS(0)-1)
		queue := make(chan *Extension, len(exts))
		for _, e := range exts {
			// Command-only extensions run when the user types their
			// command, not on every run: leave them cold.
			if e.runsEveryTurn() {
				queue <- e
			}
		}
		close(queue)
		ctx, cancel := r.bound(ctx, 0)
		var wg sync.WaitGroup
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for e := range queue {
					e.warm(ctx)
				}
			}()
		}
		go func() { wg.Wait(); cancel() }()
	})
}

// runsEveryTurn reports whether the extension has a hook that runs on every
// turn: assemble, input, or before_agent_start without inputPrefixes. One
// that runs before_agent_start only for inputs with a prefix (a "?"
// command) is left cold: on most runs it never runs, and starting it costs
// as much as any guest (a Go guest's compile-cache load, ~15 MiB of native
// code); when the input does match, its own call starts it.
func (e *Extension) runsEveryTurn() bool {
	m := e.pkg.Manifest
	return e.Handles(abi.HookAssemble) || e.Handles(abi.HookInput) ||
		e.Handles(abi.HookBeforeAgentStart) && len(m.InputPrefixes) == 0
}

// compileLock returns the lock serializing compilations of one module, so
// that packages sharing a module compile it once and then hit the cache.
// It is a channel of capacity one, so that waiting for it can be given up.
func (r *Runtime) compileLock(sha string) chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.compiling == nil {
		r.compiling = map[string]chan struct{}{}
	}
	l, ok := r.compiling[sha]
	if !ok {
		l = make(chan struct{}, 1)
		r.compiling[sha] = l
	}
	return l
}

// bound returns ctx, canceled also when the runtime closes, with a
// deadline d from now (none when d is 0).
func (r *Runtime) bound(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(r.base, cancel)
	if d > 0 {
		var c2 context.CancelFunc
		ctx, c2 = context.WithTimeout(ctx, d)
		return ctx, func() { stop(); c2(); cancel() }
	}
	return ctx, func() { stop(); cancel() }
}

// compileTimeout bounds compiling a module of size bytes.
func (r *Runtime) compileTimeout(size int) time.Duration {
	if r.cfg.CompileTimeout > 0 {
		return r.cfg.CompileTimeout
	}
	return min(compileMax, compileBase+time.Duration(float64(compilePerMiB)*float64(size)/(1<<20)))
}

// NewRuntime creates a runtime. The compilation cache directory is created
// on demand; failing to create it is an error.
func NewRuntime(ctx context.Context, cfg Config) (*Runtime, error) {
	r := &Runtime{cfg: cfg}
	r.base, r.stop = context.WithCancel(context.Background())
	if cfg.AgentDir != "" {
		root := filepath.Join(cfg.AgentDir, "cache", "wazero")
		dir := compileCacheDir(root)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("compilation cache: %w", err)
		}
		c, err := wazero.NewCompilationCacheWithDir(dir)
		if err != nil {
			return nil, fmt.Errorf("compilation cache: %w", err)
		}
		pruneCompileCaches(root, dir, time.Now())
		r.cache, r.cacheDir = c, dir
		r.digests = openDigestCache(filepath.Join(cfg.AgentDir, "cache"))
	} else {
		r.cache = wazero.NewCompilationCache()
	}
	if cfg.ProjectRoot != "" {
		abs, err := filepath.Abs(cfg.ProjectRoot)
		if err != nil {
			return nil, fmt.Errorf("project root: %w", err)
		}
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			abs = real
		}
		r.root = abs
	}
	return r, nil
}

// Close closes every extension loaded by r and the compilation cache. It
// first stops whatever is still running in the background (warm-ups,
// compilations, instantiations), so it does not wait on a guest.
func (r *Runtime) Close(ctx context.Context) error {
	r.stop()
	r.mu.Lock()
	exts := r.exts
	r.exts = nil
	r.mu.Unlock()
	for _, e := range exts {
		e.Close(ctx)
	}
	// A compilation given up on still runs and writes to the cache;
	// closing the cache under it would crash it. Close the cache when it
	// ends, without waiting for it here.
	done := make(chan struct{})
	go func() { r.compiles.Wait(); close(done) }()
	select {
	case <-done:
		return r.cache.Close(ctx)
	default:
		go func() { <-done; r.cache.Close(context.Background()) }()
		return nil
	}
}

// clearCompileCache removes the entries of the compilation cache's
// directory (wazero's files, in the directory wazero made in it), and
// reports whether there was one to clear.
func (r *Runtime) clearCompileCache() bool {
	if r.cacheDir == "" {
		return false
	}
	subs, err := os.ReadDir(r.cacheDir)
	if err != nil {
		return false
	}
	for _, sub := range subs {
		if !sub.IsDir() || !strings.HasPrefix(sub.Name(), "wazero-") {
			continue
		}
		dir := filepath.Join(r.cacheDir, sub.Name())
		files, _ := os.ReadDir(dir)
		for _, f := range files {
			if f.Type().IsRegular() && cacheEntryName(f.Name()) {
				os.Remove(filepath.Join(dir, f.Name()))
			}
		}
	}
	return true
}

// forget drops a closed extension from the runtime's list.
func (r *Runtime) forget(e *Extension) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, x := range r.exts {
		if x == e {
			r.exts = append(r.exts[:i:i], r.exts[i+1:]...)
			return
		}
	}
}

func (r *Runtime) log(ext, level, msg string) {
	if r.cfg.Log != nil {
		r.cfg.Log(ext, level, msg)
	}
}

// Load reads, verifies, compiles (in parallel, each module once per
// SHA-256 thanks to the cache) and warms the packages in dirs, returning
// the usable extensions in the order of dirs and diagnostics for the rest
// (and for capabilities requested but not granted). A later package with
// the name of an earlier one is rejected. grants gives each extension's
// grant by name.
func (r *Runtime) Load(ctx context.Context, dirs []string, grants Grants) ([]*Extension, []diag.Diagnostic) {
	type slot struct {
		ext   *Extension
		diags []diag.Diagnostic
	}
	slots := make([]slot, len(dirs))
	par := r.cfg.Parallelism
	if par <= 0 {
		par = runtime.GOMAXPROCS(0)
	}
	sem := make(chan struct{}, par)
	var wg sync.WaitGroup
	for i, dir := range dirs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			pkg, ds := readPackage(dir, r.digests)
			if pkg == nil {
				slots[i].diags = ds
				return
			}
			g, ok := grants[pkg.Manifest.Name]
			slots[i].ext, slots[i].diags = r.open(ctx, pkg, g, ok)
		}()
	}
	wg.Wait()
	if r.digests != nil {
		r.digests.save()
	}
	var exts []*Extension
	var diags []diag.Diagnostic
	seen := map[string]string{}
	for _, s := range slots {
		diags = append(diags, s.diags...)
		if s.ext == nil {
			continue
		}
		if first, dup := seen[s.ext.Name()]; dup {
			diags = append(diags, diag.Diagnostic{Kind: DiagDuplicate, Path: s.ext.pkg.ManifestPath, Extension: s.ext.Name(),
				Message: fmt.Sprintf("an extension named %q is already loaded from %s; this one is ignored", s.ext.Name(), first)})
			s.ext.Close(ctx)
			continue
		}
		seen[s.ext.Name()] = s.ext.pkg.Dir
		exts = append(exts, s.ext)
	}
	r.mu.Lock()
	r.exts = append(r.exts, exts...)
	r.mu.Unlock()
	return exts, diags
}
