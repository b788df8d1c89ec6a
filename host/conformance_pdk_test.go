package host

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	extism "github.com/extism/go-sdk"
)

// The conformance suite: guests built from stock Extism PDKs, run under
// pi's kernel and under Extism's own Go host (github.com/extism/go-sdk, a
// dependency of this test only) with the same inputs, one call after the
// other on one instance each. Every difference fails the test unless it is
// one of pi's documented restrictions (docs/extensions.md, "The contract
// for any Extism PDK"), which are asserted as such: pi refuses and Extism
// does not.

// pdkGuest is a stock-PDK guest: a module of its own under
// testdata/conformance (so that the PDKs never enter pi's go.mod), the
// files its build depends on, and how to build it into out.
type pdkGuestSrc struct {
	sources []string
	build   func(dir, out string) error
}

var pdkGuests = map[string]pdkGuestSrc{
	// The Go PDK, fetched from the module proxy, with the standard
	// toolchain.
	"gopdk": {[]string{"main.go", "go.mod", "go.sum"}, func(dir, out string) error {
		cmd := exec.Command("go", "build", "-buildmode=c-shared", "-o", out, ".")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
		if b, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("%v\n%s", err, b)
		}
		return nil
	}},
	// The AssemblyScript PDK, fetched from the npm registry (pinned by its
	// lock file), built as the AssemblyScript example is.
	"aspdk": {[]string{"assembly/index.ts", "package.json", "package-lock.json"}, func(dir, out string) error {
		cmd := exec.Command(filepath.Join("..", "..", "..", "..", "scripts", "build-as.sh"), ".")
		cmd.Dir = dir
		if b, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("%v (needs npm)\n%s", err, b)
		}
		return os.Rename(filepath.Join(dir, "aspdk.wasm"), out)
	}},
}

var pdkBuilds sync.Map // name → func() (string, error)

// pdkGuest returns the module of a stock-PDK guest, built once per source
// digest into the user's cache directory (the Go guest fetches its PDK
// from the module proxy), so that a second run of the suite builds
// nothing.
func pdkGuest(t *testing.T, name string) []byte {
	t.Helper()
	once, _ := pdkBuilds.LoadOrStore(name, sync.OnceValues(func() (string, error) {
		dir, _ := filepath.Abs(filepath.Join("testdata", "conformance", name))
		h := sha256.New()
		for _, f := range pdkGuests[name].sources {
			b, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil {
				return "", err
			}
			fmt.Fprintf(h, "%s %d\n", f, len(b))
			h.Write(b)
		}
		cache, err := os.UserCacheDir()
		if err != nil {
			cache = os.TempDir()
		}
		out := filepath.Join(cache, "pi-test", "conformance-"+name+"-"+hex.EncodeToString(h.Sum(nil))[:16]+".wasm")
		if _, err := os.Stat(out); err == nil {
			return out, nil
		}
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return "", err
		}
		tmp := out + ".tmp"
		if err := pdkGuests[name].build(dir, tmp); err != nil {
			return "", fmt.Errorf("building %s: %w", name, err)
		}
		return out, os.Rename(tmp, out)
	}))
	path, err := once.(func() (string, error))()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// outcome is what one call gave: the output, or the error and whether the
// guest set it (a guest error) rather than trapping.
type outcome struct {
	out      string
	err      string
	guestErr bool
}

func (o outcome) String() string {
	if o.err != "" {
		return fmt.Sprintf("error %q (guest %v)", o.err, o.guestErr)
	}
	if len(o.out) > 200 {
		return fmt.Sprintf("%d bytes %q…", len(o.out), o.out[:200])
	}
	return fmt.Sprintf("%q", o.out)
}

// conformanceCase is one call. restriction names the documented pi
// restriction the case runs into ("" for none): then pi must fail with
// cause and Extism must succeed.
type conformanceCase struct {
	export, input string
	restriction   string
	cause         Cause
}

func TestStockPDKConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs stock-PDK guests")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/redirect" {
			http.Redirect(w, r, strings.Replace(srvURL(r), "127.0.0.1", "localhost", 1)+"/", http.StatusFound)
			return
		}
		w.Header().Set("X-Answer", "42")
		fmt.Fprintf(w, "hello %s", r.Header.Get("X-Test"))
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	big := strings.Repeat("0123456789abcdef", 64<<10) // 1 MiB

	cases := []conformanceCase{
		{export: "echo", input: "hello, world"},
		{export: "echo", input: big},
		{export: "blocks", input: "first"},
		{export: "vars", input: "one"},
		{export: "vars", input: "two"},
		{export: "config", input: "greeting,limit,missing,list"},
		{export: "fail", input: "bad input"},
		{export: "fail_zero", input: "x"},
		{export: "logs", input: "x"},
		{export: "http", input: srv.URL + "/"},
		{export: "big", input: "2097152"},
		// pi's documented restrictions; each retires pi's instance, so
		// they come last.
		{export: "big", input: "4194312", restriction: "output cap (outputKiB)", cause: CauseOutputTooLarge},
		{export: "vars", input: strings.Repeat("v", 70<<10), restriction: "variable cap (64 KiB)", cause: CauseTrap},
		{export: "http", input: srv.URL + "/redirect", restriction: "redirects checked against the grant", cause: CauseTrap},
		{export: "http", input: "http://example.invalid/", cause: CauseTrap}, // refused by both
	}
	for _, name := range []string{"gopdk", "aspdk"} {
		t.Run(name, func(t *testing.T) {
			wasm := pdkGuest(t, name)
			pi, piLogs := piConformance(t, name, wasm, u.Host)
			ex, exLogs := extismConformance(t, wasm)
			for i, c := range cases {
				piLogs.reset()
				exLogs.reset()
				p, e := pi(c), ex(c)
				label := fmt.Sprintf("#%d %s(%.40q)", i, c.export, c.input)
				switch {
				case c.restriction != "":
					if e.err != "" || p.err == "" || !strings.Contains(p.err, string(c.cause)) {
						t.Errorf("%s: %s: want pi to refuse (%s) and Extism to answer; pi: %v, Extism: %v", label, c.restriction, c.cause, p, e)
					}
				case c.cause != "":
					// A refusal both hosts make (their messages differ).
					if p.err == "" || e.err == "" || !strings.Contains(p.err, string(c.cause)) {
						t.Errorf("%s: want both hosts to refuse; pi: %v, Extism: %v", label, p, e)
					}
				case p != e:
					t.Errorf("%s:\n  pi:     %v\n  Extism: %v", label, p, e)
				}
				if c.restriction == "" && c.cause == "" && strings.Join(piLogs.lines, "\n") != strings.Join(guestLines(exLogs.lines), "\n") {
					t.Errorf("%s: log lines differ:\n  pi:     %q\n  Extism: %q", label, piLogs.lines, exLogs.lines)
				}
			}
		})
	}
}

// guestLines drops the lines Extism's host logs about itself (which
// function it calls, its runtime's start), keeping the guest's.
func guestLines(lines []string) []string {
	var out []string
	for _, l := range lines {
		if strings.HasPrefix(l, "debug: Calling ") || strings.HasPrefix(l, "debug: Initializing runtime") {
			continue
		}
		out = append(out, l)
	}
	return out
}

func srvURL(r *http.Request) string { return "http://" + r.Host }

// conformanceConfig is the config both hosts give the guest: Extism's is a
// map of strings, pi's the manifest's mapping (a non-string value reads as
// its JSON).
var conformanceConfig = map[string]string{"greeting": "hello", "limit": "5", "list": `[1,"two"]`}

type lineLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *lineLog) add(level, msg string) {
	l.mu.Lock()
	l.lines = append(l.lines, level+": "+msg)
	l.mu.Unlock()
}

func (l *lineLog) reset() {
	l.mu.Lock()
	l.lines = nil
	l.mu.Unlock()
}

func piConformance(t *testing.T, name string, wasm []byte, hostPort string) (func(conformanceCase) outcome, *lineLog) {
	t.Helper()
	ctx := context.Background()
	logs := &lineLog{}
	rt, err := NewRuntime(ctx, Config{AgentDir: agentDir, ProjectRoot: projectRoot, Log: func(_, level, msg string) { logs.add(level, msg) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close(ctx) })
	dir := filepath.Join(t.TempDir(), name)
	manifest := fmt.Sprintf(`name: %s
abi: 1
hooks: [input]
capabilities:
  network: [%q]
limits:
  timeoutMs: 5000
  outputKiB: 4096
config:
  greeting: hello
  limit: 5
  list: [1, two]
`, name, hostPort)
	writePkg(t, dir, manifest, name+".wasm", wasm)
	exts, diags := rt.Load(ctx, []string{dir}, Grants{name: {Network: []string{hostPort}}})
	if len(exts) != 1 {
		t.Fatal(diags)
	}
	e := exts[0]
	return func(c conformanceCase) outcome {
		out, _, err := e.invoke(ctx, "conformance", c.export, []byte(c.input), nil)
		if err == nil {
			return outcome{out: string(out)}
		}
		var ce *CallError
		if errors.As(err, &ce) && ce.Cause == CauseGuestError {
			return outcome{err: ce.Err.Error(), guestErr: true}
		}
		return outcome{err: err.Error()}
	}, logs
}

func extismConformance(t *testing.T, wasm []byte) (func(conformanceCase) outcome, *lineLog) {
	t.Helper()
	ctx := context.Background()
	logs := &lineLog{}
	// Extism's level is process-wide; debug is the level pi reports.
	extism.SetLogLevel(extism.LogLevelDebug)
	p, err := extism.NewPlugin(ctx, extism.Manifest{
		Wasm:         []extism.Wasm{extism.WasmData{Data: wasm}},
		Config:       conformanceConfig,
		AllowedHosts: []string{"127.0.0.1"},
	}, extism.PluginConfig{EnableWasi: true, EnableHttpResponseHeaders: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close(ctx) })
	p.SetLogger(func(l extism.LogLevel, msg string) { logs.add(strings.ToLower(l.String()), msg) })
	return func(c conformanceCase) outcome {
		_, out, err := p.CallWithContext(ctx, c.export, []byte(c.input))
		if err != nil {
			// A guest error is one the guest set (error_get still holds
			// it); anything else is a trap or a refusal.
			msg := p.GetError()
			return outcome{err: err.Error(), guestErr: msg != "" && msg == err.Error()}
		}
		return outcome{out: string(out)}
	}, logs
}

func writePkg(t *testing.T, dir, manifest, module string, wasm []byte) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "extension.yaml"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, module), wasm, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Extism's Go host is the reference the tests check the kernel against,
// never part of pi itself.
func TestReferenceHostStaysOutOfTheBinary(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "../cmd/pi").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "github.com/extism/") {
		t.Fatal("cmd/pi depends on an Extism module")
	}
}
