// Package engine runs JavaScript in QuickJS-ng compiled to WebAssembly (the
// embedded quickjs.wasm of the npm package quickjs-wasi, see SOURCE.md),
// under wazero. The module is compiled once per Engine; each VM is one
// instance of it with a memory cap and a budget of running time per call.
//
// JavaScript and Go talk through strings only: the script calls the global
// function __pi_host(op, payload) (served by the VM's Host function), and
// Go calls a global function of the script with one string argument and
// gets a string (or a promise of one) back. Keeping the boundary to
// strings keeps the engine's C API use small: a handful of exports, no
// object graphs owned across the boundary.
package engine

import (
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

//go:embed quickjs.wasm
var wasmBytes []byte

// SHA256 is the hex SHA-256 of the embedded quickjs.wasm (SOURCE.md says
// where it comes from; scripts/fetch-quickjs.sh checks it).
const SHA256 = "d4c9375f2b1ca4dc95f72c8aa2982a7a9951ac8011490d79c6582df732b4bbd9"

// Engine is the compiled engine, shared by every VM of a process.
type Engine struct {
	rt    wazero.Runtime
	mod   wazero.CompiledModule
	cache wazero.CompilationCache
}

// MaxMemoryPages caps the linear memory of every VM (64 KiB pages): the
// hard ceiling behind each VM's own heap limit, which QuickJS enforces
// itself with a catchable out-of-memory error.
const MaxMemoryPages = 1024 // 64 MiB

// New compiles the engine. cacheDir, when not empty, is wazero's on-disk
// compilation cache (shared with pi's other guests: the key is the module's
// hash and wazero's version).
func New(ctx context.Context, cacheDir string) (*Engine, error) {
	cfg := wazero.NewRuntimeConfig().
		WithCloseOnContextDone(true).
		WithMemoryLimitPages(MaxMemoryPages)
	var cache wazero.CompilationCache
	if cacheDir != "" {
		if c, err := wazero.NewCompilationCacheWithDir(filepath.Clean(cacheDir)); err == nil {
			cache = c
			cfg = cfg.WithCompilationCache(c)
		}
	}
	rt := wazero.NewRuntimeWithConfig(ctx, cfg)
	e := &Engine{rt: rt, cache: cache}
	if err := e.defineHost(ctx); err != nil {
		rt.Close(ctx)
		return nil, err
	}
	mod, err := rt.CompileModule(ctx, wasmBytes)
	if err != nil {
		rt.Close(ctx)
		return nil, fmt.Errorf("compile the JavaScript engine: %w", err)
	}
	e.mod = mod
	return e, nil
}

// Close releases the engine and every VM still open.
func (e *Engine) Close(ctx context.Context) error {
	err := e.rt.Close(ctx)
	if e.cache != nil {
		e.cache.Close(ctx)
	}
	return err
}

// Host serves the script's __pi_host(op, payload) calls. An error is
// thrown into the script as an Error with the error's text.
type Host func(ctx context.Context, op string, payload []byte) ([]byte, error)

// Config configures a VM.
type Config struct {
	// HeapBytes is QuickJS's own allocation limit (default 32 MiB).
	HeapBytes int
	// Host serves __pi_host. Nil: every call throws.
	Host Host
	// Stderr receives what the engine writes to its standard streams
	// (nothing, normally: the shims route console output through Host).
	Stderr func([]byte)
}

// vmKey carries the VM whose call is in progress to the host functions.
type vmKey struct{}

// VM is one engine instance. Calls are serialized by the caller (the VM is
// not safe for concurrent use).
type VM struct {
	e     *Engine
	cfg   Config
	mod   api.Module
	mem   api.Memory
	fn    map[string]api.Function
	scr   uint32 // 8 scratch bytes (string lengths)
	undef uint32 // a boxed undefined, kept for calls

	// Time accounting of the call in progress.
	mu       sync.Mutex
	budget   time.Duration // guest time allowed
	started  time.Time     // start of the current guest stretch
	used     time.Duration // guest time before the current stretch
	inHost   int           // depth of host calls (time there is not the guest's)
	timedOut bool
	dead     error
}

var exportNames = []string{
	"_initialize", "qjs_init", "qjs_set_memory_limit", "qjs_set_max_stack_size",
	"qjs_set_interrupt_handler", "qjs_get_global", "qjs_new_host_function",
	"qjs_set_prop_string", "qjs_get_prop_string", "qjs_eval", "qjs_call",
	"qjs_new_string", "qjs_get_string_len", "qjs_free_cstring", "qjs_free_value",
	"qjs_is_exception", "qjs_get_exception", "qjs_is_promise", "qjs_promise_state",
	"qjs_promise_result", "qjs_is_job_pending", "qjs_execute_pending_job",
	"qjs_throw", "qjs_new_error", "qjs_get_undefined", "qjs_is_string",
	"qjs_compute_memory_usage", "qjs_run_gc", "wasm_malloc", "wasm_free",
}

// NewVM starts a VM.
func (e *Engine) NewVM(ctx context.Context, cfg Config) (*VM, error) {
	if cfg.HeapBytes <= 0 {
		cfg.HeapBytes = 32 << 20
	}
	vm := &VM{e: e, cfg: cfg, fn: map[string]api.Function{}}
	ictx := context.WithValue(ctx, vmKey{}, vm)
	mod, err := e.rt.InstantiateModule(ictx, e.mod, wazero.NewModuleConfig().WithName("").WithStartFunctions())
	if err != nil {
		return nil, fmt.Errorf("start the JavaScript engine: %w", err)
	}
	vm.mod, vm.mem = mod, mod.Memory()
	for _, n := range exportNames {
		f := mod.ExportedFunction(n)
		if f == nil {
			mod.Close(ctx)
			return nil, fmt.Errorf("the JavaScript engine lacks the export %s", n)
		}
		vm.fn[n] = f
	}
	fail := func(err error) (*VM, error) {
		mod.Close(ctx)
		return nil, fmt.Errorf("start the JavaScript engine: %w", err)
	}
	if _, err := vm.call(ictx, "_initialize"); err != nil {
		return fail(err)
	}
	if r, err := vm.call(ictx, "qjs_init"); err != nil || int32(r) != 0 {
		return fail(errors.Join(err, errors.New("qjs_init failed")))
	}
	if _, err := vm.call(ictx, "qjs_set_memory_limit", uint64(cfg.HeapBytes)); err != nil {
		return fail(err)
	}
	if _, err := vm.call(ictx, "qjs_set_max_stack_size", 512<<10); err != nil {
		return fail(err)
	}
	if _, err := vm.call(ictx, "qjs_set_interrupt_handler", 1); err != nil {
		return fail(err)
	}
	scr, err := vm.call(ictx, "wasm_malloc", 8)
	if err != nil || scr == 0 {
		return fail(errors.Join(err, errors.New("no scratch memory")))
	}
	vm.scr = uint32(scr)
	u, err := vm.call(ictx, "qjs_get_undefined")
	if err != nil {
		return fail(err)
	}
	vm.undef = uint32(u)
	// The one host function, as the global __pi_host.
	name, err := vm.cstring(ictx, "__pi_host")
	if err != nil {
		return fail(err)
	}
	f, err := vm.call(ictx, "qjs_new_host_function", uint64(name), 9, 2)
	if err != nil {
		return fail(err)
	}
	g, err := vm.call(ictx, "qjs_get_global")
	if err != nil {
		return fail(err)
	}
	if _, err := vm.call(ictx, "qjs_set_prop_string", g, uint64(name), f); err != nil {
		return fail(err)
	}
	vm.call(ictx, "qjs_free_value", f)
	vm.call(ictx, "qjs_free_value", g)
	vm.call(ictx, "wasm_free", uint64(name))
	return vm, nil
}

// Close ends the VM.
func (vm *VM) Close(ctx context.Context) error { return vm.mod.Close(ctx) }

// Dead reports why the VM can no longer be used (nil: it can): a trap, a
// call stopped at its deadline by closing the instance, or memory
// exhausted past the engine's own limit.
func (vm *VM) Dead() error { return vm.dead }

func (vm *VM) call(ctx context.Context, name string, args ...uint64) (uint64, error) {
	res, err := vm.fn[name].Call(ctx, args...)
	if err != nil {
		if vm.dead == nil {
			vm.dead = err
		}
		return 0, err
	}
	if len(res) == 0 {
		return 0, nil
	}
	return res[0], nil
}

// cstring copies s into the instance, NUL-terminated; free with wasm_free.
func (vm *VM) cstring(ctx context.Context, s string) (uint32, error) {
	p, err := vm.call(ctx, "wasm_malloc", uint64(len(s)+1))
	if err != nil {
		return 0, err
	}
	if p == 0 {
		return 0, ErrMemory
	}
	if !vm.mem.WriteString(uint32(p), s) || !vm.mem.WriteByte(uint32(p)+uint32(len(s)), 0) {
		return 0, errors.New("the engine's memory is smaller than it said")
	}
	return uint32(p), nil
}

// newString makes a JS string value (a box the caller frees).
func (vm *VM) newString(ctx context.Context, s []byte) (uint64, error) {
	p, err := vm.call(ctx, "wasm_malloc", uint64(len(s)+1))
	if err != nil {
		return 0, err
	}
	if p == 0 {
		return 0, ErrMemory
	}
	vm.mem.Write(uint32(p), s)
	v, err := vm.call(ctx, "qjs_new_string", p, uint64(len(s)))
	vm.call(ctx, "wasm_free", p)
	return v, err
}

// str reads a value as a string (converting it as JavaScript's String
// would; the shims only ever hand over strings).
func (vm *VM) str(ctx context.Context, v uint64) (string, error) {
	c, err := vm.call(ctx, "qjs_get_string_len", v, uint64(vm.scr))
	if err != nil {
		return "", err
	}
	if c == 0 {
		return "", errors.New("the value could not be read as a string")
	}
	n, _ := vm.mem.ReadUint32Le(vm.scr)
	b, ok := vm.mem.Read(uint32(c), n)
	out := string(b)
	vm.call(ctx, "qjs_free_cstring", c)
	if !ok {
		return "", errors.New("a string lies outside the engine's memory")
	}
	return out, nil
}

// ErrMemory is returned when the engine's heap is exhausted.
var ErrMemory = errors.New("the extension ran out of memory")

// ErrTimeout is returned when a call ran past its time budget.
var ErrTimeout = errors.New("the extension ran past its time limit")

// exception turns the pending exception into an error.
func (vm *VM) exception(ctx context.Context) error {
	if vm.timedOut {
		return ErrTimeout
	}
	x, err := vm.call(ctx, "qjs_get_exception")
	if err != nil {
		return err
	}
	defer vm.call(ctx, "qjs_free_value", x)
	return vm.errorOf(ctx, x)
}

// errorOf describes a thrown value: its stack when it has one (an Error),
// its string form otherwise. It runs a small piece of the shim
// (__pi_describe) when present, so that getters on a hostile error object
// run inside the guest's budget like everything else.
func (vm *VM) errorOf(ctx context.Context, x uint64) error {
	s, err := vm.str(ctx, x)
	if err != nil {
		return fmt.Errorf("the script threw a value that could not be read (%v)", err)
	}
	if s == "InternalError: out of memory" || s == "RangeError: out of memory" {
		return ErrMemory
	}
	if s == "InternalError: interrupted" && vm.timedOut {
		return ErrTimeout
	}
	return &ScriptError{Message: s}
}

// ScriptError is an exception the script threw.
type ScriptError struct{ Message string }

func (e *ScriptError) Error() string { return e.Message }

// Eval runs src as a global script under budget.
func (vm *VM) Eval(ctx context.Context, src, filename string, budget time.Duration) error {
	if vm.dead != nil {
		return vm.dead
	}
	ctx, done := vm.begin(ctx, budget)
	defer done()
	code, err := vm.cstring(ctx, src)
	if err != nil {
		return vm.fault(err)
	}
	defer vm.call(ctx, "wasm_free", uint64(code))
	fn, err := vm.cstring(ctx, filename)
	if err != nil {
		return vm.fault(err)
	}
	defer vm.call(ctx, "wasm_free", uint64(fn))
	r, err := vm.call(ctx, "qjs_eval", uint64(code), uint64(len(src)), uint64(fn), 0)
	if err != nil {
		return vm.fault(err)
	}
	defer vm.call(ctx, "qjs_free_value", r)
	if x, _ := vm.call(ctx, "qjs_is_exception", r); x != 0 {
		return vm.exception(ctx)
	}
	return vm.drain(ctx)
}

// drain runs the pending jobs.
func (vm *VM) drain(ctx context.Context) error {
	for {
		p, err := vm.call(ctx, "qjs_is_job_pending")
		if err != nil {
			return vm.fault(err)
		}
		if p == 0 {
			return nil
		}
		r, err := vm.call(ctx, "qjs_execute_pending_job")
		if err != nil {
			return vm.fault(err)
		}
		if int32(r) < 0 {
			return vm.exception(ctx)
		}
	}
}

// Call calls the global function name with arg and returns its result as a
// string; a promise is awaited by running the job queue until it settles.
// When only timers are left, the global function idle (when not empty) is
// called: it runs the timers that are due and returns, as a string, the
// milliseconds until the next one, or -1 when none is set. Waiting for a
// timer does not count against the budget, but all waits of one call
// together are bounded by MaxWait.
func (vm *VM) Call(ctx context.Context, name string, arg []byte, budget time.Duration, idle string) (string, error) {
	if vm.dead != nil {
		return "", vm.dead
	}
	ctx, done := vm.begin(ctx, budget)
	defer done()
	r, err := vm.callGlobal(ctx, name, arg, true)
	if err != nil {
		return "", err
	}
	defer vm.call(ctx, "qjs_free_value", r)
	if p, _ := vm.call(ctx, "qjs_is_promise", r); p == 0 {
		if err := vm.drain(ctx); err != nil {
			return "", err
		}
		s, err := vm.str(ctx, r)
		return s, vm.fault(err)
	}
	var waited time.Duration
	for {
		if err := vm.drain(ctx); err != nil {
			return "", err
		}
		st, err := vm.call(ctx, "qjs_promise_state", r)
		if err != nil {
			return "", vm.fault(err)
		}
		switch st {
		case 1, 2: // fulfilled, rejected
			v, err := vm.call(ctx, "qjs_promise_result", r)
			if err != nil {
				return "", vm.fault(err)
			}
			defer vm.call(ctx, "qjs_free_value", v)
			if st == 2 {
				return "", vm.errorOf(ctx, v)
			}
			s, err := vm.str(ctx, v)
			return s, vm.fault(err)
		}
		if idle == "" {
			return "", ErrNeverSettles
		}
		iv, err := vm.callGlobal(ctx, idle, nil, false)
		if err != nil {
			return "", err
		}
		s, err := vm.str(ctx, iv)
		vm.call(ctx, "qjs_free_value", iv)
		if err != nil {
			return "", vm.fault(err)
		}
		ms, perr := strconv.ParseFloat(s, 64)
		if perr != nil || ms < 0 {
			return "", ErrNeverSettles
		}
		wait := time.Duration(ms * float64(time.Millisecond))
		if waited+wait > MaxWait {
			return "", fmt.Errorf("the handler's promise waited on timers for more than %v", MaxWait)
		}
		waited += wait
		if err := vm.sleep(ctx, wait); err != nil {
			return "", err
		}
	}
}

// MaxWait bounds the time one call may spend waiting for its timers.
const MaxWait = 30 * time.Second

// callGlobal calls the global function name, with arg as its one argument
// when withArg; the result is a box the caller frees.
func (vm *VM) callGlobal(ctx context.Context, name string, arg []byte, withArg bool) (uint64, error) {
	g, err := vm.call(ctx, "qjs_get_global")
	if err != nil {
		return 0, vm.fault(err)
	}
	defer vm.call(ctx, "qjs_free_value", g)
	cn, err := vm.cstring(ctx, name)
	if err != nil {
		return 0, vm.fault(err)
	}
	f, err := vm.call(ctx, "qjs_get_prop_string", g, uint64(cn))
	vm.call(ctx, "wasm_free", uint64(cn))
	if err != nil {
		return 0, vm.fault(err)
	}
	defer vm.call(ctx, "qjs_free_value", f)
	argc := uint64(0)
	if withArg {
		a, err := vm.newString(ctx, arg)
		if err != nil {
			return 0, vm.fault(err)
		}
		defer vm.call(ctx, "qjs_free_value", a)
		if !vm.mem.WriteUint32Le(vm.scr+4, uint32(a)) {
			return 0, vm.fault(errors.New("scratch memory lost"))
		}
		argc = 1
	}
	r, err := vm.call(ctx, "qjs_call", f, uint64(vm.undef), argc, uint64(vm.scr+4))
	if err != nil {
		return 0, vm.fault(err)
	}
	if x, _ := vm.call(ctx, "qjs_is_exception", r); x != 0 {
		vm.call(ctx, "qjs_free_value", r)
		return 0, vm.exception(ctx)
	}
	return r, nil
}

// ErrNeverSettles is a promise that nothing left can settle.
var ErrNeverSettles = errors.New("the handler's promise never settles: it waits for something that will not happen")

// sleep waits for a timer, outside the guest's budget (waiting is not
// running), but never past the caller's context.
func (vm *VM) sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	vm.enterHost()
	defer vm.leaveHost()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return vm.fault(ctx.Err())
	}
}

// fault maps a failed engine call to the error callers see.
func (vm *VM) fault(err error) error {
	if err == nil {
		return nil
	}
	if vm.timedOut {
		return ErrTimeout
	}
	return err
}

// begin starts accounting a call: the returned context is canceled (and
// with it the instance closed, by wazero) when the guest has used its
// budget and a grace period on top without the engine's own interrupt
// stopping it, or when ctx ends.
func (vm *VM) begin(ctx context.Context, budget time.Duration) (context.Context, func()) {
	vm.mu.Lock()
	vm.budget, vm.used, vm.started, vm.inHost, vm.timedOut = budget, 0, time.Now(), 0, false
	vm.mu.Unlock()
	ctx, cancel := context.WithCancel(ctx)
	ctx = context.WithValue(ctx, vmKey{}, vm)
	stop := make(chan struct{})
	go func() {
		t := time.NewTicker(25 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				if vm.guestTime() > budget+hardGrace {
					vm.mu.Lock()
					vm.timedOut = true
					vm.mu.Unlock()
					cancel()
					return
				}
			}
		}
	}()
	return ctx, func() { close(stop); cancel() }
}

// hardGrace is how long past its budget a guest may run before its
// instance is closed: the engine's interrupt handler normally stops it
// first, cleanly, and the VM stays usable.
const hardGrace = 500 * time.Millisecond

func (vm *VM) guestTime() time.Duration {
	vm.mu.Lock()
	defer vm.mu.Unlock()
	if vm.inHost > 0 {
		return vm.used
	}
	return vm.used + time.Since(vm.started)
}

func (vm *VM) enterHost() {
	vm.mu.Lock()
	if vm.inHost == 0 {
		vm.used += time.Since(vm.started)
	}
	vm.inHost++
	vm.mu.Unlock()
}

func (vm *VM) leaveHost() {
	vm.mu.Lock()
	vm.inHost--
	if vm.inHost == 0 {
		vm.started = time.Now()
	}
	vm.mu.Unlock()
}

// interrupted is QuickJS's periodic question.
func (vm *VM) interrupted() bool {
	if vm.guestTime() > vm.budget {
		vm.mu.Lock()
		vm.timedOut = true
		vm.mu.Unlock()
		return true
	}
	return false
}

// MemoryUsage returns the engine's heap in use and the instance's linear
// memory size, in bytes.
func (vm *VM) MemoryUsage(ctx context.Context) (heap int64, linear uint32) {
	if vm.dead != nil {
		return 0, 0
	}
	p, err := vm.call(ctx, "wasm_malloc", 26*8)
	if err != nil || p == 0 {
		return 0, vm.mem.Size()
	}
	defer vm.call(ctx, "wasm_free", p)
	if _, err := vm.call(ctx, "qjs_compute_memory_usage", p); err != nil {
		return 0, vm.mem.Size()
	}
	b, _ := vm.mem.Read(uint32(p)+2*8, 8) // memory_used_size
	return int64(binary.LittleEndian.Uint64(b)), vm.mem.Size()
}

// defineHost instantiates the engine's imports: env (host_call and the
// engine's hooks) and the six WASI functions it links against, served
// here rather than by a WASI implementation: the engine gets a clock and
// randomness and nothing else (no files, no environment, no arguments).
func (e *Engine) defineHost(ctx context.Context) error {
	i32 := api.ValueTypeI32
	i64 := api.ValueTypeI64
	env := e.rt.NewHostModuleBuilder("env")
	env.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(hostCall), []api.ValueType{i32, i32, i32, i32, i32}, []api.ValueType{i32}).Export("host_call")
	env.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(func(ctx context.Context, _ api.Module, s []uint64) {
		s[0] = 0
		if vm, ok := ctx.Value(vmKey{}).(*VM); ok && vm.interrupted() {
			s[0] = 1
		}
	}), nil, []api.ValueType{i32}).Export("host_interrupt")
	env.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(func(ctx context.Context, m api.Module, s []uint64) {
		// Unhandled rejections are the shim's to report; the boxed
		// values the engine handed over are freed here.
		if vm, ok := ctx.Value(vmKey{}).(*VM); ok {
			vm.call(ctx, "qjs_free_value", s[0])
			vm.call(ctx, "qjs_free_value", s[1])
		}
	}), []api.ValueType{i32, i32, i32}, nil).Export("host_promise_rejection")
	env.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(func(ctx context.Context, _ api.Module, s []uint64) {
		s[0] = 0 // no ES modules: bundles are scripts
	}), []api.ValueType{i32, i32}, []api.ValueType{i32}).Export("host_module_normalize")
	env.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(func(ctx context.Context, _ api.Module, s []uint64) {
		s[0] = 0
	}), []api.ValueType{i32, i32}, []api.ValueType{i32}).Export("host_module_load")
	env.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(func(ctx context.Context, _ api.Module, s []uint64) {
		t := time.Unix(int64(uint64(uint32(s[0]))<<32|uint64(uint32(s[1]))), 0)
		_, off := t.Zone()
		s[0] = uint64(uint32(int32(off)))
	}), []api.ValueType{i32, i32}, []api.ValueType{i32}).Export("host_get_timezone_offset")
	if _, err := env.Instantiate(ctx); err != nil {
		return fmt.Errorf("define the engine's host functions: %w", err)
	}
	const (
		errnoSuccess = 0
		errnoBadf    = 8
		errnoInval   = 28
	)
	wasi := e.rt.NewHostModuleBuilder("wasi_snapshot_preview1")
	wasi.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(func(ctx context.Context, m api.Module, s []uint64) {
		var t uint64
		switch uint32(s[0]) {
		case 0: // realtime
			t = uint64(time.Now().UnixNano())
		case 1, 2, 3: // monotonic, process and thread CPU time
			t = uint64(time.Since(processStart).Nanoseconds())
		default:
			s[0] = errnoInval
			return
		}
		if !m.Memory().WriteUint64Le(uint32(s[2]), t) {
			s[0] = errnoInval
			return
		}
		s[0] = errnoSuccess
	}), []api.ValueType{i32, i64, i32}, []api.ValueType{i32}).Export("clock_time_get")
	wasi.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(func(ctx context.Context, m api.Module, s []uint64) {
		fd, iovs, n, written := uint32(s[0]), uint32(s[1]), uint32(s[2]), uint32(s[3])
		if fd != 1 && fd != 2 {
			s[0] = errnoBadf
			return
		}
		var total uint32
		vm, _ := ctx.Value(vmKey{}).(*VM)
		for i := range n {
			p, ok1 := m.Memory().ReadUint32Le(iovs + i*8)
			l, ok2 := m.Memory().ReadUint32Le(iovs + i*8 + 4)
			if !ok1 || !ok2 {
				s[0] = errnoInval
				return
			}
			if b, ok := m.Memory().Read(p, l); ok && vm != nil && vm.cfg.Stderr != nil {
				vm.cfg.Stderr(append([]byte(nil), b...))
			}
			total += l
		}
		m.Memory().WriteUint32Le(written, total)
		s[0] = errnoSuccess
	}), []api.ValueType{i32, i32, i32, i32}, []api.ValueType{i32}).Export("fd_write")
	wasi.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(func(ctx context.Context, m api.Module, s []uint64) {
		s[0] = errnoBadf
	}), []api.ValueType{i32}, []api.ValueType{i32}).Export("fd_close")
	wasi.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(func(ctx context.Context, m api.Module, s []uint64) {
		s[0] = errnoBadf
	}), []api.ValueType{i32, i64, i32, i32}, []api.ValueType{i32}).Export("fd_seek")
	wasi.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(func(ctx context.Context, m api.Module, s []uint64) {
		fd, buf := uint32(s[0]), uint32(s[1])
		if fd > 2 {
			s[0] = errnoBadf
			return
		}
		// A character device, no flags, no rights beyond writing.
		var st [24]byte
		st[0] = 2
		m.Memory().Write(buf, st[:])
		s[0] = errnoSuccess
	}), []api.ValueType{i32, i32}, []api.ValueType{i32}).Export("fd_fdstat_get")
	wasi.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(func(ctx context.Context, m api.Module, s []uint64) {
		buf, n := uint32(s[0]), uint32(s[1])
		b := make([]byte, n)
		rand.Read(b)
		if !m.Memory().Write(buf, b) {
			s[0] = errnoInval
			return
		}
		s[0] = errnoSuccess
	}), []api.ValueType{i32, i32}, []api.ValueType{i32}).Export("random_get")
	if _, err := wasi.Instantiate(ctx); err != nil {
		return fmt.Errorf("define the engine's system interface: %w", err)
	}
	return nil
}

var processStart = time.Now()

// maxHostPayload bounds one host call's payload each way.
const maxHostPayload = 16 << 20

// hostCall serves __pi_host(op, payload): both arguments are read as
// strings; the answer is a new string, or a thrown Error.
func hostCall(ctx context.Context, m api.Module, s []uint64) {
	vm, ok := ctx.Value(vmKey{}).(*VM)
	if !ok {
		s[0] = 0
		return
	}
	argc, argv := uint32(s[3]), uint32(s[4])
	arg := func(i uint32) (string, error) {
		if i >= argc {
			return "", nil
		}
		p, ok := m.Memory().ReadUint32Le(argv + i*4)
		if !ok {
			return "", errors.New("bad argument")
		}
		return vm.str(ctx, uint64(p))
	}
	throw := func(msg string) {
		e, err := vm.call(ctx, "qjs_new_error")
		if err != nil {
			s[0] = 0
			return
		}
		mv, err := vm.newString(ctx, []byte(msg))
		if err == nil {
			cn, _ := vm.cstring(ctx, "message")
			vm.call(ctx, "qjs_set_prop_string", e, uint64(cn), mv)
			vm.call(ctx, "wasm_free", uint64(cn))
			vm.call(ctx, "qjs_free_value", mv)
		}
		t, _ := vm.call(ctx, "qjs_throw", e)
		vm.call(ctx, "qjs_free_value", t)
		vm.call(ctx, "qjs_free_value", e)
		s[0] = 0
	}
	op, err := arg(0)
	if err != nil {
		throw("pi: " + err.Error())
		return
	}
	payload, err := arg(1)
	if err != nil {
		throw("pi: " + err.Error())
		return
	}
	if len(payload) > maxHostPayload {
		throw("pi: the request is larger than 16 MiB")
		return
	}
	if vm.cfg.Host == nil {
		throw("pi: no host functions")
		return
	}
	vm.enterHost()
	out, herr := vm.cfg.Host(ctx, op, []byte(payload))
	vm.leaveHost()
	if herr != nil {
		throw(herr.Error())
		return
	}
	if len(out) > maxHostPayload {
		throw("pi: the answer is larger than 16 MiB")
		return
	}
	v, err := vm.newString(ctx, out)
	if err != nil {
		throw("pi: " + err.Error())
		return
	}
	s[0] = v
}
