package host

import (
	"bytes"
	"context"
	crand "crypto/rand"
	"errors"
	"fmt"
	"os"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/piwasm/pi/abi"
	"github.com/piwasm/pi/core/hooks"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/sys"
)

// instance is one live instantiation of an extension's module.
type instance struct {
	mod    api.Module // the guest module
	mem    api.Memory // its linear memory; nil if it has none
	k      *kernel    // its Extism kernel state
	stderr *headBuffer
	// logLines counts log lines outside calls (instantiation, warm-up).
	logLines int
	// hostCalls counts calls to pi's and Extism's host functions (not
	// WASI's): a start that made one is not snapshotted.
	hostCalls int
	// The fake clock and random source of a guest without those grants,
	// kept to save and restore their state with a snapshot.
	clock *fakeClock
	rand  *detRand

	// Functions resolved once: wazero allocates a call stack for every
	// ExportedFunction lookup.
	fns   map[string]api.Function
	stack [1]uint64
}

// fn returns the export name, or nil.
func (i *instance) fn(name string) api.Function {
	f, ok := i.fns[name]
	if !ok {
		f = i.mod.ExportedFunction(name)
		i.fns[name] = f
	}
	return f
}

// call runs export with input as the Extism input of the call (the
// kernel's memory is emptied first, as Extism does) and returns its i32
// result (0 for an export without results).
func (i *instance) call(ctx context.Context, export string, input []byte) (uint32, error) {
	f := i.fn(export)
	if f == nil {
		return 0, fmt.Errorf("missing export %s", export)
	}
	if n := len(f.Definition().ParamTypes()); n != 0 {
		return 0, fmt.Errorf("export %s takes %d parameters; pi exports take none", export, n)
	}
	i.k.reset(input)
	i.stack[0] = 0
	if err := f.CallWithStack(ctx, i.stack[:]); err != nil {
		return 0, err
	}
	if len(f.Definition().ResultTypes()) == 0 {
		return 0, nil
	}
	return uint32(i.stack[0]), nil
}

func (i *instance) close() { i.mod.Close(context.Background()) }

// callState is the data of the call in progress, read by host functions.
type callState struct {
	event     []byte
	fetch     hooks.Fetcher
	fetched   map[string][]byte // lazy keys already asked for (nil value = not found)
	file      string            // last file read, kept for the guest's retry
	fileData  []byte
	out       []byte
	outputSet bool
	outputLen int
	tooLarge  bool
	maxOutput int
	logLines  int
	update    func(string) // a tool call's partial output (nil: none)
	updates   int
	deadline  *callDeadline // paused while a question is open
	questions int           // pi_ui_* questions asked (at most abi.MaxUIQuestions)
	asked     *uiAsked      // the last question and its answer
}

// fixedWalltime is the wall clock a guest without the clock grant sees:
// always 2001-01-01T00:00:00Z.
const fixedWalltime = 978307200

// newInstance instantiates the compiled module with the granted
// capabilities and runs the guest runtime's initializer (_initialize of a
// WASI reactor, such as a Go c-shared module, or __wasm_call_ctors). It
// does not call pi_abi_version.
func (e *Extension) newInstance(ctx context.Context) (*instance, error) {
	inst := &instance{stderr: &headBuffer{max: 8 << 10}, fns: map[string]api.Function{}}
	inst.k = newKernel(e.limits.MemoryMiB << 20)
	inst.clock = &fakeClock{}
	inst.rand = &detRand{state: 0x9e3779b97f4a7c15}
	// An empty name lets an old instance and its replacement coexist in
	// the extension's runtime; start functions are run below, under the
	// initialization deadline.
	mc := wazero.NewModuleConfig().WithName("").WithStartFunctions().WithStderr(inst.stderr)
	if e.caps.Clock {
		mc = mc.WithSysWalltime().WithSysNanotime().WithSysNanosleep()
	} else {
		mc = mc.WithWalltime(func() (int64, int32) { return fixedWalltime, 0 }, 1).
			WithNanotime(inst.clock.nanotime, 1)
	}
	if e.caps.Random {
		mc = mc.WithRandSource(crand.Reader)
	} else {
		mc = mc.WithRandSource(inst.rand)
	}
	for _, k := range e.caps.Env {
		if v, ok := os.LookupEnv(k); ok {
			mc = mc.WithEnv(k, v)
		}
	}
	// Instantiating runs the module's start function, if it has one: guest
	// code, bounded like any other (and stopped when pi shuts down).
	cctx, cancel := e.rt.bound(ctx, e.initTimeout())
	defer cancel()
	ictx := experimental.WithMemoryAllocator(cctx, linearMemory)
	// Host functions called while the module starts see this instance.
	prev := e.live
	e.live = inst
	mod, err := e.wrt.InstantiateModule(ictx, e.compiled, mc)
	if err != nil {
		e.live = prev
		_, cerr := classify(cctx, err, inst.stderr.String(), e.initTimeout())
		return nil, fmt.Errorf("instantiate: %w", cerr)
	}
	inst.mod, inst.mem = mod, mod.Memory()
	for _, name := range []string{"_initialize", "__wasm_call_ctors"} {
		if inst.fn(name) == nil {
			continue
		}
		// The guest runtime's own start-up (a Go guest's runtime and
		// package initialization) gets a budget of its own.
		ictx, icancel := e.rt.bound(ctx, e.initTimeout())
		_, err := inst.call(ictx, name, nil)
		if err != nil {
			e.live = prev
			mod.Close(ctx)
			_, cerr := classify(ictx, err, inst.stderr.String(), e.initTimeout())
			icancel()
			return nil, fmt.Errorf("%s: %w", name, cerr)
		}
		icancel()
		break
	}
	return inst, nil
}

// fakeClock is the monotonic clock of a guest without the clock grant: 0
// at the first reading, then 1 ms more at each (wazero's own fake clock,
// with its state kept where pi can read it).
type fakeClock struct{ t int64 }

func (c *fakeClock) nanotime() int64 {
	c.t += 1e6
	return c.t - 1e6
}

// abiVersion calls pi_abi_version.
func (i *instance) abiVersion(ctx context.Context, d time.Duration) (int, error) {
	cctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	rc, err := i.call(cctx, abi.ExportABIVersion, nil)
	if err != nil {
		_, cerr := classify(cctx, err, i.stderr.String(), d)
		return 0, cerr
	}
	return int(int32(rc)), nil
}

// classify maps the error of a call to a cause and a readable error.
func classify(ctx context.Context, err error, stderr string, d time.Duration) (Cause, error) {
	var exit *sys.ExitError
	if errors.As(err, &exit) {
		switch exit.ExitCode() {
		case sys.ExitCodeDeadlineExceeded:
			return CauseTimeout, fmt.Errorf("stopped after its deadline of %v", d)
		case sys.ExitCodeContextCanceled:
			return CauseCanceled, errors.New("call canceled")
		}
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return CauseTimeout, fmt.Errorf("stopped after its deadline of %v", d)
	}
	if errors.Is(ctx.Err(), context.Canceled) {
		return CauseCanceled, errors.New("call canceled")
	}
	detail := firstLine(stderr)
	if site := panicSite(stderr); site != "" && strings.HasPrefix(detail, "panic:") {
		detail += " at " + site
	}
	if strings.Contains(stderr, "out of memory") || strings.Contains(err.Error(), "out of memory") && !strings.Contains(err.Error(), "out of bounds") {
		if detail == "" {
			detail = err.Error()
		}
		return CauseMemory, fmt.Errorf("memory limit reached: %s", detail)
	}
	if detail != "" {
		return CauseTrap, fmt.Errorf("%v (%s)", trimErr(err), detail)
	}
	return CauseTrap, trimErr(err)
}

// trimErr keeps the first line of a wazero error (which carries a stack
// trace on following lines).
func trimErr(err error) error {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return errors.New(s[:i])
	}
	return err
}

// panicSite reads a Go traceback on a guest's stderr and returns where the
// panic started, as "file.go:line in function": the first frame after the
// "goroutine" header that is not the runtime's own. A frame is a function
// line followed by a tab-indented "file:line +0x…" line. Other languages'
// guests print no such trace and get "".
func panicSite(stderr string) string {
	lines := strings.Split(stderr, "\n")
	start := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "goroutine ") {
			start = i + 1
			break
		}
	}
	if start < 0 {
		return ""
	}
	for i := start; i+1 < len(lines); i++ {
		fn, loc := lines[i], lines[i+1]
		if !strings.HasPrefix(loc, "\t") || strings.HasPrefix(fn, "\t") {
			continue
		}
		i++
		if strings.HasPrefix(fn, "panic(") || strings.HasPrefix(fn, "runtime.") {
			continue
		}
		loc = strings.TrimSpace(loc)
		if j := strings.LastIndex(loc, " +0x"); j >= 0 {
			loc = loc[:j]
		}
		if j := strings.LastIndex(fn, "("); j > 0 {
			fn = fn[:j]
		}
		return path.Base(loc) + " in " + fn
	}
	return ""
}

func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}

// headBuffer keeps the first max bytes written to it (a guest's stderr):
// a Go panic prints its message and the innermost frames first, which is
// what a report needs; what follows may be dropped.
type headBuffer struct {
	mu  sync.Mutex
	max int
	buf bytes.Buffer
}

func (t *headBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if room := t.max - t.buf.Len(); room > 0 {
		t.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

func (t *headBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.buf.String()
}

func (t *headBuffer) reset() {
	t.mu.Lock()
	t.buf.Reset()
	t.mu.Unlock()
}

// detRand is the deterministic random source of a guest without the
// random grant (splitmix64 from a fixed seed, fresh per instance).
type detRand struct{ state uint64 }

func (r *detRand) Read(p []byte) (int, error) {
	for i := 0; i < len(p); i += 8 {
		r.state += 0x9e3779b97f4a7c15
		z := r.state
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		z ^= z >> 31
		for j := 0; j < 8 && i+j < len(p); j++ {
			p[i+j] = byte(z >> (8 * j))
		}
	}
	return len(p), nil
}
