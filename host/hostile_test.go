package host

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/piwasm/pi/abi"
)

const hostileManifest = `name: hostile
abi: 1
hooks: [before_agent_start]
capabilities:
  files: [allowed.txt, "ok/*.txt"]
limits:
  timeoutMs: 5000
  memoryMiB: 32
config:
  mode: ok
`

// callErr asserts that err is a *CallError with cause, naming the extension.
func callErr(t *testing.T, err error, name string, cause Cause) *CallError {
	t.Helper()
	var ce *CallError
	if !errors.As(err, &ce) {
		t.Fatalf("want *CallError (%s), got %T %v", cause, err, err)
	}
	if ce.Cause != cause || ce.Extension != name || !strings.Contains(ce.Error(), `"`+name+`"`) || !strings.Contains(ce.Error(), string(cause)) {
		t.Fatalf("want cause %s for %s, got %v", cause, name, ce)
	}
	return ce
}

// wellBehaved checks that an unrelated extension still works.
func wellBehaved(t *testing.T, good *Extension) {
	t.Helper()
	res, err := good.BeforeAgentStart(context.Background(), abi.BeforeAgentStartEvent{Input: "still here"}, nil)
	if err != nil || len(res.Ops) != 2 || res.Ops[0].Text != "still here" {
		t.Fatalf("well-behaved extension after a hostile call: %+v %v", res, err)
	}
}

func TestHostileGuests(t *testing.T) {
	ctx := context.Background()
	// Only the looping case needs a short deadline; the others get the
	// longest one (hostileManifest's), so that on a loaded machine the limit
	// under test (memory, output size) is reached before the deadline.
	exts := load(t, Grants{"hostile": {Files: []string{"allowed.txt", "ok/*.txt"}}},
		pkg(t, "hostile", hostileManifest),
		pkg(t, "sdkguest", "name: good\nabi: 1\nhooks: [before_agent_start]\n"))
	hostile, good := exts[0], exts[1]
	looper := load1(t, "hostile", strings.Replace(hostileManifest, "timeoutMs: 5000", "timeoutMs: 1000", 1))
	retiredByHostile := 0

	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	t.Setenv("PI_TEST_SECRET", "hunter2")

	cases := []struct {
		mode   string
		cause  Cause
		detail string
	}{
		{"loop", CauseTimeout, "deadline of 1s"},
		{"alloc", CauseMemory, "out of memory"},
		{"panic", CauseTrap, "hostile guest gives up at main.go:"},
		{"badjson", CauseBadEnvelope, "invalid character"},
		{"big", CauseOutputTooLarge, "exceeds the limit of 1048576"},
		{"net", CauseTrap, "is not allowed"},
	}
	for _, c := range cases {
		t.Run(c.mode, func(t *testing.T) {
			start := time.Now()
			ev := abi.BeforeAgentStartEvent{Input: c.mode}
			if c.mode == "net" {
				ev.Input = "" // the configured mode is "ok": use a per-test package
			}
			var err error
			target := hostile
			if c.mode == "loop" {
				target = looper
			}
			if c.mode == "net" {
				net := load1(t, "hostile", strings.Replace(hostileManifest, "mode: ok", "mode: net\n  url: "+srv.URL, 1))
				_, err = net.BeforeAgentStart(ctx, ev, nil)
				callErr(t, err, "hostile", c.cause)
				if net.Retired() != 1 {
					t.Fatal("instance not retired")
				}
			} else {
				before := target.Retired()
				_, err = target.BeforeAgentStart(ctx, ev, nil)
				callErr(t, err, "hostile", c.cause)
				if target.Retired() != before+1 {
					t.Fatalf("instance not retired (%d -> %d)", before, target.Retired())
				}
				if target == hostile {
					retiredByHostile++
				}
			}
			if !strings.Contains(err.Error(), c.detail) {
				t.Fatalf("error %q does not mention %q", err, c.detail)
			}
			if d := time.Since(start); d > 30*time.Second {
				t.Fatalf("containment took %v", d)
			}
			wellBehaved(t, good)
			// The retired instance is replaced: the next call succeeds.
			if _, err := target.BeforeAgentStart(ctx, abi.BeforeAgentStartEvent{Input: "ok"}, nil); err != nil {
				t.Fatalf("call after %s: %v", c.mode, err)
			}
		})
	}
	if hits.Load() != 0 {
		t.Fatalf("the test server was reached %d times", hits.Load())
	}

	t.Run("files", func(t *testing.T) {
		_, err := hostile.BeforeAgentStart(ctx, abi.BeforeAgentStartEvent{Input: "passwd"}, nil)
		ce := callErr(t, err, "hostile", CauseGuestError)
		msg := ce.Err.Error()
		if strings.Contains(msg, "root:") || strings.Contains(msg, "SECRET") || strings.Contains(msg, "OUTSIDE") {
			t.Fatalf("guest read something it should not: %s", msg)
		}
		if !strings.Contains(msg, "wasi-denied:") {
			t.Fatalf("WASI read not denied: %s", msg)
		}
		for _, p := range []string{"../outside.txt", "/etc/passwd", "../../../../../../etc/passwd", "secret.txt", "link-out.txt", "ok/../secret.txt"} {
			if !strings.Contains(msg, "pi-denied:"+p+":") {
				t.Fatalf("pi_read_file %s not denied: %s", p, msg)
			}
		}
		if hostile.Retired() != retiredByHostile {
			t.Fatalf("a guest-side error retired the instance")
		}
		wellBehaved(t, good)
	})

	t.Run("extism-output", func(t *testing.T) {
		res, err := hostile.BeforeAgentStart(ctx, abi.BeforeAgentStartEvent{Input: "extism-output"}, nil)
		if err != nil || res.Message != "via extism" {
			t.Fatalf("%+v %v", res, err)
		}
		// The next call does not see the previous call's Extism output.
		if _, err := hostile.BeforeAgentStart(ctx, abi.BeforeAgentStartEvent{Input: "ok"}, nil); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("extism-error", func(t *testing.T) {
		// A stock PDK's error: a guest error with its message, and the
		// instance stays.
		before := hostile.Retired()
		_, err := hostile.BeforeAgentStart(ctx, abi.BeforeAgentStartEvent{Input: "extism-error"}, nil)
		ce := callErr(t, err, "hostile", CauseGuestError)
		if !strings.Contains(ce.Error(), "handler failed") || hostile.Retired() != before {
			t.Fatalf("%v (retired %d → %d)", ce, before, hostile.Retired())
		}
	})

	t.Run("env", func(t *testing.T) {
		_, err := hostile.BeforeAgentStart(ctx, abi.BeforeAgentStartEvent{Input: "env"}, nil)
		ce := callErr(t, err, "hostile", CauseGuestError)
		if ce.Err.Error() != `environ=[] secret=""` {
			t.Fatalf("guest saw environment: %s", ce.Err)
		}
	})
}

func TestReadFileGrant(t *testing.T) {
	ctx := context.Background()
	m := strings.Replace(hostileManifest, "mode: ok", "mode: readfile\n  path: allowed.txt", 1)
	dir := pkg(t, "hostile", m)
	exts := load(t, Grants{"hostile": {Files: []string{"allowed.txt"}}}, dir)
	res, err := exts[0].BeforeAgentStart(ctx, abi.BeforeAgentStartEvent{}, nil)
	if err != nil || len(res.Ops) != 1 || res.Ops[0].Text != "allowed content" {
		t.Fatalf("granted read: %+v %v", res, err)
	}
	// The same module without a grant reads nothing.
	exts2, _ := testRT.Load(ctx, []string{dir}, nil)
	defer exts2[0].Close(ctx)
	_, err = exts2[0].BeforeAgentStart(ctx, abi.BeforeAgentStartEvent{}, nil)
	if ce := callErr(t, err, "hostile", CauseGuestError); ce.Err.Error() != "code -2" {
		t.Fatalf("ungranted read: %v", ce)
	}
}

func TestReadGranted(t *testing.T) {
	globs := []string{"allowed.txt", "link-*.txt", ".git/*"}
	cases := []struct {
		path string
		code int64
	}{
		{"allowed.txt", 15},
		{"./allowed.txt", 15},
		{".git/HEAD", 26},
		{".git/missing", abi.ErrNotFound},
		{"secret.txt", abi.ErrDenied},
		{"link-out.txt", abi.ErrDenied}, // resolves outside the project
		{"link-in.txt", abi.ErrDenied},  // resolves to an ungranted file
		{"../outside.txt", abi.ErrDenied},
		{"/etc/passwd", abi.ErrDenied},
		{"", abi.ErrInvalid},
		{"a\\b", abi.ErrInvalid},
		{".git", abi.ErrDenied},
	}
	root := testRT.root
	for _, c := range cases {
		_, code := readGranted(root, globs, c.path, 1<<20)
		if code != c.code {
			t.Errorf("%q: got %d, want %d", c.path, code, c.code)
		}
	}
	if _, code := readGranted(root, globs, "allowed.txt", 4); code != abi.ErrIO {
		t.Errorf("oversized file: got %d", code)
	}
	if _, code := readGranted("", globs, "allowed.txt", 1<<20); code != abi.ErrDenied {
		t.Errorf("no project root: got %d", code)
	}
}

func TestLoadDiagnostics(t *testing.T) {
	ctx := context.Background()
	write := func(t *testing.T, manifest string, wasm []byte) string {
		dir := pkg(t, "", manifest)
		if wasm != nil {
			name := strings.Fields(strings.SplitN(manifest, "\n", 2)[0])[1]
			if err := os.WriteFile(filepath.Join(dir, name+".wasm"), wasm, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	version := func(v byte) wasmFunc { return wasmFunc{abi.ExportABIVersion, i32const(v)} }
	cases := []struct {
		name, manifest string
		fixture        string
		wasm           []byte
		kind, want     string
	}{
		{"unknown abi in manifest", "name: future\nabi: 2\nhooks: [input]\n", "sdkguest", nil, DiagManifest, "abi: unsupported ABI version 2"},
		{"unknown field", "name: typo\nabi: 1\nhook: [input]\n", "sdkguest", nil, DiagManifest, `line 3: unknown key "hook" (did you mean "hooks"?)`},
		{"bad name", "name: Bad\nabi: 1\nhooks: [input]\n", "", nil, DiagManifest, "name:"},
		{"missing module", "name: ghost\nabi: 1\nhooks: [input]\n", "", nil, DiagModule, "no such file"},
		{"exports nothing (Go)", "name: empty\nabi: 1\nhooks: [input]\n", "nothing", nil, DiagExports, "missing export pi_abi_version"},
		{"exports nothing (bare)", "name: bare\nabi: 1\nhooks: [input]\n", "", wasmModule(), DiagExports, "missing export pi_abi_version"},
		{"module speaks abi 2", "name: later\nabi: 1\nhooks: [input]\n", "", wasmModule(version(2)), DiagABI, "module speaks ABI 2"},
		{"missing hook export", "name: partial\nabi: 1\nhooks: [input, before_agent_start]\n", "", wasmModule(version(1), wasmFunc{abi.ExportInput, i32const(0)}), DiagExports, "missing export pi_before_agent_start (hook before_agent_start)"},
		{"not wasm", "name: junk\nabi: 1\nhooks: [input]\n", "", []byte("hello"), DiagCompile, "not a WebAssembly module"},
		{"bad code", "name: junk2\nabi: 1\nhooks: [input]\n", "", append(wasmModule(version(1)), 0x0a, 0x01, 0x05), DiagCompile, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := pkg(t, c.fixture, c.manifest)
			if c.wasm != nil {
				dir = write(t, c.manifest, c.wasm)
			}
			exts, diags := testRT.Load(ctx, []string{dir}, nil)
			if len(exts) != 0 || len(diags) != 1 {
				t.Fatalf("exts %d diags %+v", len(exts), diags)
			}
			d := diags[0]
			if d.Kind != c.kind || !strings.Contains(d.Message, c.want) || !strings.HasPrefix(d.Path, dir) {
				t.Fatalf("got %+v", d)
			}
		})
	}

	t.Run("unreachable", func(t *testing.T) {
		m := "name: trapper\nabi: 1\nhooks: [input]\n"
		dir := write(t, m, wasmModule(version(1), wasmFunc{abi.ExportInput, opUnreachable}))
		exts := load(t, nil, dir)
		_, err := exts[0].Input(ctx, abi.InputEvent{Text: "x"})
		callErr(t, err, "trapper", CauseTrap)
		if !strings.Contains(err.Error(), "unreachable") || exts[0].Retired() != 1 {
			t.Fatalf("%v (retired %d)", err, exts[0].Retired())
		}
	})

	t.Run("duplicate name", func(t *testing.T) {
		a := pkg(t, "sdkguest", "name: twin\nabi: 1\nhooks: [input]\n")
		b := pkg(t, "sdkguest", "name: twin\nabi: 1\nhooks: [input]\n")
		exts, diags := testRT.Load(ctx, []string{a, b}, nil)
		defer exts[0].Close(ctx)
		if len(exts) != 1 || exts[0].Dir() != a || len(diags) != 1 || diags[0].Kind != DiagDuplicate {
			t.Fatalf("exts %d diags %+v", len(exts), diags)
		}
	})
}

func TestGuestErrorsKeepInstance(t *testing.T) {
	ctx := context.Background()
	e := load1(t, "sdkguest", "name: sdk\nabi: 1\nhooks: [before_agent_start, input]\n")
	_, err := e.BeforeAgentStart(ctx, abi.BeforeAgentStartEvent{Input: "panic"}, nil)
	ce := callErr(t, err, "sdk", CauseGuestError)
	// The SDK names where the guest panicked.
	if !strings.Contains(ce.Err.Error(), "panic: assignment to entry in nil map at main.go:") {
		t.Fatal(ce)
	}
	_, err = e.BeforeAgentStart(ctx, abi.BeforeAgentStartEvent{Input: "error"}, nil)
	callErr(t, err, "sdk", CauseGuestError)
	_, err = e.BeforeAgentStart(ctx, abi.BeforeAgentStartEvent{Input: "bad-op"}, nil)
	callErr(t, err, "sdk", CauseInvalidResult)
	// A hook the manifest does not declare is not called.
	_, err = e.Assemble(ctx, abi.AssembleEvent{})
	callErr(t, err, "sdk", CauseUnavailable)
	if e.Retired() != 0 {
		t.Fatalf("retired %d", e.Retired())
	}
	in, err := e.Input(ctx, abi.InputEvent{Text: "!shout"})
	if err != nil || in.Action != abi.ActionTransform || in.Text != "SHOUT" {
		t.Fatalf("input: %+v %v", in, err)
	}
	in, err = e.Input(ctx, abi.InputEvent{Text: "calm"})
	if err != nil || in.Action != abi.ActionContinue {
		t.Fatalf("input: %+v %v", in, err)
	}
}

// The caller's context (50 ms) ends a looping call before the manifest's
// deadline (5 s, the host's cap): the bound between them leaves a loaded
// machine's scheduling delays room without taking the deadline for the
// context.
func TestCanceledContext(t *testing.T) {
	e := load1(t, "hostile", hostileManifest)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := e.BeforeAgentStart(ctx, abi.BeforeAgentStartEvent{Input: "loop"}, nil)
	var ce *CallError
	if !errors.As(err, &ce) || (ce.Cause != CauseTimeout && ce.Cause != CauseCanceled) || time.Since(start) > 4*time.Second {
		t.Fatalf("%v after %v", err, time.Since(start))
	}
}

// Weakness: Extism's own log functions bypassed pi_log's budget (a guest
// could log 200 MiB in one line, or lines without end). They now get the
// same caps: maxLogLen bytes per line, maxLogLines lines per call.
func TestExtismLogIsCapped(t *testing.T) {
	var lines, longest int
	rt, err := NewRuntime(context.Background(), Config{AgentDir: agentDir, ProjectRoot: projectRoot, Log: func(ext, level, msg string) {
		lines++
		longest = max(longest, len(msg))
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close(context.Background())
	m := hostileManifest
	exts, diags := rt.Load(context.Background(), []string{pkg(t, "hostile", m)}, nil)
	if len(exts) != 1 {
		t.Fatal(diags)
	}
	if _, err := exts[0].BeforeAgentStart(context.Background(), abi.BeforeAgentStartEvent{Input: "extism-log"}, nil); err != nil {
		t.Fatal(err)
	}
	if lines != maxLogLines || longest != maxLogLen {
		t.Fatalf("%d lines logged (cap %d), longest %d bytes (cap %d)", lines, maxLogLines, longest, maxLogLen)
	}
}

// The deadline fires near its set value: not before it, and well before a
// multiple of it. The upper bound (3×) holds on a loaded machine, where
// stopping a guest lags its deadline by scheduling delays of milliseconds
// to a few hundred; it fails if the deadline used were 4 times the one set.
func TestDeadlineFiresNearItsValue(t *testing.T) {
	const ms = 1500
	m := strings.Replace(hostileManifest, "timeoutMs: 5000", fmt.Sprintf("timeoutMs: %d", ms), 1)
	e := load1(t, "hostile", m)
	ctx := context.Background()
	// Instantiate first: the measurement covers the call alone.
	if _, err := e.BeforeAgentStart(ctx, abi.BeforeAgentStartEvent{Input: "ok"}, nil); err != nil {
		t.Fatal(err)
	}
	set := ms * time.Millisecond
	start := time.Now()
	_, err := e.BeforeAgentStart(ctx, abi.BeforeAgentStartEvent{Input: "loop"}, nil)
	took := time.Since(start)
	callErr(t, err, "hostile", CauseTimeout)
	if took < set || took >= 3*set {
		t.Fatalf("a deadline of %v fired after %v", set, took)
	}
}
