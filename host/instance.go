package host

import (
	"bytes"
	"context"
	crand "crypto/rand"
	"errors"
	"fmt"
	"os"
	"path"
	"reflect"
	"strings"
	"sync"
	"time"
	"unsafe"

	extism "github.com/extism/go-sdk"
	"github.com/piwasm/pi/abi"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"
)

// instance is one live instantiation of an extension's module.
type instance struct {
	plugin *extism.Plugin
	main   api.Module // the guest module itself
	kernel api.Module // Extism's kernel module of this instance
	mem    api.Memory // the guest's linear memory; nil if it has none
	stderr *headBuffer
	// logLines counts log lines outside calls (instantiation, warm-up).
	logLines int

	// Functions resolved once: wazero allocates a call stack for every
	// ExportedFunction lookup, which Extism's own call path repeats
	// several times per call.
	fns                  map[string]api.Function
	kernelUsed           bool // the guest imports Extism's kernel functions
	reset, outOff, outLn api.Function
	values               context.Context // carries Extism's context keys
}

// fn returns the cached export name, or nil.
func (i *instance) fn(name string) api.Function {
	f, ok := i.fns[name]
	if !ok {
		f = i.main.ExportedFunction(name)
		i.fns[name] = f
	}
	return f
}

// callCtx returns ctx carrying the values Extism's host functions look up
// (the plugin and its kernel), so that guests may still use them.
func (i *instance) callCtx(ctx context.Context) context.Context {
	return valuesCtx{Context: ctx, values: i.values}
}

// valuesCtx takes deadline and cancellation from Context and values from
// values.
type valuesCtx struct {
	context.Context
	values context.Context
}

func (c valuesCtx) Value(key any) any { return c.values.Value(key) }

// call runs export directly on the guest (Extism's kernel is reset first,
// as Extism does) and returns its i32 result.
func (i *instance) call(ctx context.Context, export string) (uint32, error) {
	f := i.fn(export)
	if f == nil {
		return 0, fmt.Errorf("missing export %s", export)
	}
	cctx := i.callCtx(ctx)
	if i.kernelUsed {
		if _, err := i.reset.Call(cctx); err != nil {
			return 0, err
		}
	}
	res, err := f.Call(cctx)
	if err != nil {
		return 0, err
	}
	if len(res) == 0 {
		return 0, nil
	}
	return uint32(res[0]), nil
}

// extismOutput returns what the guest wrote with Extism's output_set (for
// guests built with another Extism PDK).
func (i *instance) extismOutput(ctx context.Context) ([]byte, error) {
	if !i.kernelUsed {
		return nil, nil
	}
	cctx := i.callCtx(ctx)
	off, err := i.outOff.Call(cctx)
	if err != nil {
		return nil, err
	}
	n, err := i.outLn.Call(cctx)
	if err != nil {
		return nil, err
	}
	if n[0] == 0 {
		return nil, nil
	}
	b, ok := i.plugin.Memory().Read(uint32(off[0]), uint32(n[0]))
	if !ok {
		return nil, errors.New("output out of range")
	}
	return append([]byte(nil), b...), nil
}

func (i *instance) close() { i.plugin.Close(context.Background()) }

// callState is the data of the call in progress, read by host functions.
type callState struct {
	event     []byte
	fetch     FetchFunc
	fetched   map[string][]byte // lazy keys already asked for (nil value = not found)
	file      string            // last file read, kept for the guest's retry
	fileData  []byte
	out       []byte
	outputSet bool
	outputLen int
	tooLarge  bool
	maxOutput int
	logLines  int
}

// fixedWalltime is the wall clock a guest without the clock grant sees:
// always 2001-01-01T00:00:00Z.
const fixedWalltime = 978307200

// newInstance instantiates the compiled module with the granted
// capabilities. It does not call into the guest.
func (e *Extension) newInstance(ctx context.Context) (*instance, error) {
	inst := &instance{stderr: &headBuffer{max: 8 << 10}}
	mc := wazero.NewModuleConfig().WithStderr(inst.stderr)
	if e.caps.Clock {
		mc = mc.WithSysWalltime().WithSysNanotime().WithSysNanosleep()
	} else {
		mc = mc.WithWalltime(func() (int64, int32) { return fixedWalltime, 0 }, 1)
	}
	if e.caps.Random {
		mc = mc.WithRandSource(crand.Reader)
	} else {
		mc = mc.WithRandSource(&detRand{state: 0x9e3779b97f4a7c15})
	}
	for _, k := range e.caps.Env {
		if v, ok := os.LookupEnv(k); ok {
			mc = mc.WithEnv(k, v)
		}
	}
	// Instantiating runs the module's start function, if it has one: guest
	// code, bounded like any other (and stopped when pi shuts down).
	ictx, cancel := e.rt.bound(ctx, e.initTimeout())
	defer cancel()
	p, err := e.compiled.Instance(ictx, extism.PluginInstanceConfig{ModuleConfig: mc})
	if err != nil {
		_, cerr := classify(ictx, err, inst.stderr.String(), e.initTimeout())
		return nil, fmt.Errorf("instantiate: %w", cerr)
	}
	name := e.Name()
	p.SetLogger(func(level extism.LogLevel, msg string) {
		lv := "info"
		switch level {
		case extism.LogLevelTrace, extism.LogLevelDebug:
			lv = "debug"
		case extism.LogLevelWarn:
			lv = "warn"
		case extism.LogLevelError:
			lv = "error"
		}
		// Extism's log functions get pi_log's budget: lines per call and
		// bytes per line (Extism has already read the whole message).
		if !e.logAllowed(inst) {
			return
		}
		if len(msg) > maxLogLen {
			msg = msg[:maxLogLen]
		}
		e.rt.log(name, lv, msg)
	})
	inst.plugin = p
	inst.main, inst.kernel, err = pluginModules(p)
	if err != nil {
		p.Close(ctx)
		return nil, err
	}
	inst.mem = inst.main.Memory()
	inst.fns = map[string]api.Function{}
	inst.kernelUsed = e.pkg.usesExtismKernel()
	inst.reset = inst.kernel.ExportedFunction("reset")
	inst.outOff = inst.kernel.ExportedFunction("output_offset")
	inst.outLn = inst.kernel.ExportedFunction("output_length")
	if inst.reset == nil || inst.outOff == nil || inst.outLn == nil {
		p.Close(ctx)
		return nil, errors.New("unsupported Extism kernel")
	}
	v := context.WithValue(context.Background(), extism.PluginCtxKey("extism"), inst.kernel)
	v = context.WithValue(v, extism.PluginCtxKey("plugin"), p)
	v = withNetGrant(v, e.caps.Network)
	inst.values = context.WithValue(v, extism.InputOffsetKey("inputOffset"), uint64(0))
	return inst, nil
}

// abiVersion initializes the guest's runtime and calls pi_abi_version.
func (i *instance) abiVersion(ctx context.Context, d time.Duration) (int, error) {
	cctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	rc, _, err := i.plugin.CallWithContext(i.callCtx(cctx), abi.ExportABIVersion, nil)
	if err != nil {
		_, cerr := classify(cctx, err, i.stderr.String(), d)
		return 0, cerr
	}
	return int(int32(rc)), nil
}

var (
	fieldsOnce               sync.Once
	mainOffset, kernelOffset uintptr
	fieldsErr                error
)

// pluginModules returns the guest's own module instance and Extism's
// kernel instance inside an Extism plugin. Extism keeps both in unexported
// fields and hands host functions only the kernel's memory; the guest's
// linear memory is what the pi host functions read and write, and calling
// the guest directly avoids Extism's per-call function lookups. The fields
// are located once by name and type; a change of Extism's layout is
// reported as an error at instantiation (and caught by the tests), never
// as a crash.
func pluginModules(p *extism.Plugin) (main, kernel api.Module, err error) {
	fieldsOnce.Do(func() {
		modType := reflect.TypeOf((*api.Module)(nil)).Elem()
		t := reflect.TypeOf(extism.Plugin{})
		m, ok1 := t.FieldByName("mainModule")
		k, ok2 := t.FieldByName("extism")
		if !ok1 || !ok2 || m.Type != modType || k.Type != modType {
			fieldsErr = errors.New("unsupported Extism version: cannot reach the guest module")
			return
		}
		mainOffset, kernelOffset = m.Offset, k.Offset
	})
	if fieldsErr != nil {
		return nil, nil, fieldsErr
	}
	main = *(*api.Module)(unsafe.Add(unsafe.Pointer(p), mainOffset))
	kernel = *(*api.Module)(unsafe.Add(unsafe.Pointer(p), kernelOffset))
	if main == nil || kernel == nil {
		return nil, nil, errors.New("plugin has no guest module")
	}
	return main, kernel, nil
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
