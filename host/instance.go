package host

import (
	"bytes"
	"context"
	crand "crypto/rand"
	"errors"
	"fmt"
	"os"
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
	main   api.Module // the guest module itself (not Extism's kernel)
	mem    api.Memory // the guest's linear memory; nil if it has none
	stderr *tailBuffer
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
	inst := &instance{stderr: &tailBuffer{max: 8 << 10}}
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
	p, err := e.compiled.Instance(ctx, extism.PluginInstanceConfig{ModuleConfig: mc})
	if err != nil {
		return nil, err
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
		e.rt.log(name, lv, msg)
	})
	inst.plugin = p
	inst.main, err = guestModule(p)
	if err != nil {
		p.Close(ctx)
		return nil, err
	}
	inst.mem = inst.main.Memory()
	return inst, nil
}

// abiVersion initializes the guest's runtime and calls pi_abi_version.
func (i *instance) abiVersion(ctx context.Context, d time.Duration) (int, error) {
	cctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	rc, _, err := i.plugin.CallWithContext(cctx, abi.ExportABIVersion, nil)
	if err != nil {
		_, cerr := classify(cctx, err, i.stderr.String(), d)
		return 0, cerr
	}
	return int(int32(rc)), nil
}

var (
	guestFieldOnce sync.Once
	guestField     reflect.StructField
	guestFieldErr  error
)

// guestModule returns the guest's own module instance inside an Extism
// plugin. Extism keeps it in an unexported field and hands host functions
// only its kernel's memory; the guest's linear memory is what the pi host
// functions must read and write, so the field is read once per instance.
// A change of Extism's layout is reported as an error at instantiation
// (and caught by the tests), never as a crash.
func guestModule(p *extism.Plugin) (api.Module, error) {
	guestFieldOnce.Do(func() {
		f, ok := reflect.TypeOf(extism.Plugin{}).FieldByName("mainModule")
		if !ok || f.Type != reflect.TypeOf((*api.Module)(nil)).Elem() {
			guestFieldErr = errors.New("unsupported Extism version: cannot reach the guest module")
			return
		}
		guestField = f
	})
	if guestFieldErr != nil {
		return nil, guestFieldErr
	}
	ptr := unsafe.Add(unsafe.Pointer(p), guestField.Offset)
	m := *(*api.Module)(ptr)
	if m == nil {
		return nil, errors.New("plugin has no guest module")
	}
	return m, nil
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

func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}

// tailBuffer keeps the first max bytes written to it (a guest's stderr).
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf bytes.Buffer
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if room := t.max - t.buf.Len(); room > 0 {
		t.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.buf.String()
}

func (t *tailBuffer) reset() {
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
