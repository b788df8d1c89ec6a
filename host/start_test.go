package host

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/piwasm/pi/abi"
)

// loopingStartModule is a module whose start function never returns; it
// exports pi_abi_version (reporting 1) and pi_input.
func loopingStartModule() []byte {
	m := []byte{0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00}
	m = append(m, section(1, []byte{2, 0x60, 0, 1, 0x7f, 0x60, 0, 0})...) // () -> i32, () -> ()
	m = append(m, section(3, []byte{3, 0, 0, 1})...)
	ex := []byte{2}
	for i, name := range []string{abi.ExportABIVersion, abi.ExportInput} {
		ex = append(append(append(ex, uleb(uint32(len(name)))...), name...), 0, byte(i))
	}
	m = append(m, section(7, ex)...)
	m = append(m, section(8, []byte{2})...) // start: function 2
	ret1 := []byte{0, 0x41, 1, 0x0b}
	loop := []byte{0, 0x03, 0x40, 0x0c, 0x00, 0x0b, 0x0b} // loop br 0 end
	code := []byte{3}
	for _, b := range [][]byte{ret1, ret1, loop} {
		code = append(append(code, uleb(uint32(len(b)))...), b...)
	}
	return append(m, section(10, code)...)
}

// within runs f and fails the test if it has not returned after limit
// (far above what the bound under test allows, so that a loaded machine
// passes; without the bound f never returns).
func within(t *testing.T, limit time.Duration, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(limit):
		t.Fatalf("%s did not return within %v", what, limit)
	}
}

// Hole: instantiation had no deadline, so a module whose start function
// loops hung loading, the first call, and (through the background warm-up)
// closing the runtime at exit.
func TestLoopingStartFunction(t *testing.T) {
	ctx := context.Background()
	dir := pkg(t, "", "name: starter\nabi: 1\nhooks: [input]\n")
	if err := os.WriteFile(filepath.Join(dir, "starter.wasm"), loopingStartModule(), 0o644); err != nil {
		t.Fatal(err)
	}

	t.Run("eager load", func(t *testing.T) {
		within(t, 30*time.Second, "Load", func() {
			exts, diags := testRT.Load(ctx, []string{dir}, nil)
			if len(exts) != 0 || len(diags) != 1 || diags[0].Kind != DiagInstantiate || !strings.Contains(diags[0].Message, "deadline") {
				t.Errorf("exts %d, diags %v", len(exts), diags)
			}
		})
	})

	t.Run("lazy first call", func(t *testing.T) {
		rt, err := NewRuntime(ctx, Config{AgentDir: agentDir, Lazy: true})
		if err != nil {
			t.Fatal(err)
		}
		defer rt.Close(ctx)
		exts, diags := rt.Load(ctx, []string{dir}, nil)
		if len(exts) != 1 {
			t.Fatalf("lazy load: %v", diags)
		}
		within(t, 30*time.Second, "the first call", func() {
			_, err := exts[0].Input(ctx, abi.InputEvent{Text: "x"})
			ce := callErr(t, err, "starter", CauseUnavailable)
			if !strings.Contains(ce.Error(), "deadline") {
				t.Errorf("error does not name the deadline: %v", ce)
			}
		})
	})

	t.Run("warm-up then close", func(t *testing.T) {
		dir := pkg(t, "", "name: starter\nabi: 1\nhooks: [input]\nlimits:\n  timeoutMs: 5000\n")
		if err := os.WriteFile(filepath.Join(dir, "starter.wasm"), loopingStartModule(), 0o644); err != nil {
			t.Fatal(err)
		}
		rt, err := NewRuntime(ctx, Config{AgentDir: agentDir, Lazy: true})
		if err != nil {
			t.Fatal(err)
		}
		if exts, diags := rt.Load(ctx, []string{dir}, nil); len(exts) != 1 {
			t.Fatalf("lazy load: %v", diags)
		}
		rt.Prewarm(ctx)
		time.Sleep(50 * time.Millisecond) // let the warm-up start the loop
		start := time.Now()
		within(t, 30*time.Second, "Close during a warm-up", func() { rt.Close(ctx) })
		// Close stops the warm-up rather than waiting for its deadline
		// (5 s): a loose bound that still tells the two apart.
		if d := time.Since(start); d > 4*time.Second {
			t.Errorf("Close waited %v for the warm-up", d)
		}
	})
}

// Compiling is bounded: a module that takes longer than the compile
// timeout fails to load with a diagnostic instead of holding pi.
func TestCompileTimeout(t *testing.T) {
	ctx := context.Background()
	rt, err := NewRuntime(ctx, Config{CompileTimeout: time.Nanosecond}) // no on-disk cache: a real compile
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close(ctx)
	exts, diags := rt.Load(ctx, []string{pkg(t, "sdkguest", "name: slow\nabi: 1\nhooks: [input]\n")}, nil)
	if len(exts) != 0 || len(diags) != 1 || diags[0].Kind != DiagCompile || !strings.Contains(diags[0].Message, "compiling took longer than") {
		t.Fatalf("exts %d, diags %v", len(exts), diags)
	}

	// A canceled context stops a load at once.
	rt2, err := NewRuntime(ctx, Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer rt2.Close(ctx)
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	exts, diags = rt2.Load(cctx, []string{pkg(t, "sdkguest", "name: slow\nabi: 1\nhooks: [input]\n")}, nil)
	if len(exts) != 0 || len(diags) != 1 || !strings.Contains(diags[0].Message, "canceled") {
		t.Fatalf("exts %d, diags %v", len(exts), diags)
	}
}

// Weakness: module and manifest files were read with no regular-file
// check and no size cap, so /dev/zero exhausted memory and a named pipe
// hung pi. Both are now refused with a diagnostic naming the file.
func TestPackageFilesMustBeRegular(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name  string
		setup func(t *testing.T, dir string)
		kind  string
		want  string
	}{
		{"manifest is /dev/zero", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, "extension.yaml"))
			if err := os.Symlink("/dev/zero", filepath.Join(dir, "extension.yaml")); err != nil {
				t.Fatal(err)
			}
		}, DiagManifest, "not a regular file (a device)"},
		{"manifest is a pipe", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, "extension.yaml"))
			if err := mkfifo(filepath.Join(dir, "extension.yaml")); err != nil {
				t.Skip(err)
			}
		}, DiagManifest, "not a regular file (a named pipe)"},
		{"module is /dev/zero", func(t *testing.T, dir string) {
			if err := os.Symlink("/dev/zero", filepath.Join(dir, "zero.wasm")); err != nil {
				t.Fatal(err)
			}
		}, DiagModule, "not a regular file (a device)"},
		{"module is a pipe", func(t *testing.T, dir string) {
			if err := mkfifo(filepath.Join(dir, "zero.wasm")); err != nil {
				t.Skip(err)
			}
		}, DiagModule, "not a regular file (a named pipe)"},
		{"manifest too large", func(t *testing.T, dir string) {
			big := append([]byte("name: zero\nabi: 1\n#"), make([]byte, MaxManifestBytes)...)
			if err := os.WriteFile(filepath.Join(dir, "extension.yaml"), big, 0o644); err != nil {
				t.Fatal(err)
			}
		}, DiagManifest, "over the limit"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := pkg(t, "", "name: zero\nabi: 1\nhooks: [input]\n")
			c.setup(t, dir)
			within(t, 30*time.Second, "Load", func() {
				exts, diags := testRT.Load(ctx, []string{dir}, nil)
				if len(exts) != 0 || len(diags) != 1 || diags[0].Kind != c.kind || !strings.Contains(diags[0].Message, c.want) {
					t.Errorf("exts %d, diags %v", len(exts), diags)
				}
			})
		})
	}
}

// The default compile bound grows with the module, so that a big
// legitimate module on a loaded machine gets room while a small module
// that compiles for minutes (the hostile case: 300 KB, 100 s) does not.
func TestCompileTimeoutBySize(t *testing.T) {
	rt := &Runtime{}
	cases := []struct {
		size int
		want time.Duration
	}{
		{0, 30 * time.Second},
		{300 << 10, 30*time.Second + 30*time.Second*300/1024},
		{1 << 20, time.Minute},
		{4 << 20, 150 * time.Second},
		{MaxModuleBytes, 5 * time.Minute},
	}
	for _, c := range cases {
		if got := rt.compileTimeout(c.size); got != c.want {
			t.Errorf("%d bytes: %v, want %v", c.size, got, c.want)
		}
	}
	if got := (&Runtime{cfg: Config{CompileTimeout: time.Second}}).compileTimeout(1 << 30); got != time.Second {
		t.Errorf("configured bound ignored: %v", got)
	}
}
