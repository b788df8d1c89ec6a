package host

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Fixtures shared by the package's tests: every WASM guest is built once
// (in TestMain) and compiled once (through the shared cache in agentDir).
var (
	wasmDir     string // <tmp>/wasm/<name>.wasm
	agentDir    string // <tmp>/agent (compilation cache)
	projectRoot string // <tmp>/project (files for pi_read_file)
	testRT      *Runtime
	logs        logSink
)

type logSink struct {
	mu    sync.Mutex
	lines []string
}

func (l *logSink) add(ext, level, msg string) {
	l.mu.Lock()
	l.lines = append(l.lines, ext+" "+level+" "+msg)
	l.mu.Unlock()
}

func (l *logSink) has(s string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, x := range l.lines {
		if strings.Contains(x, s) {
			return true
		}
	}
	return false
}

// guests maps a fixture name to its source package (relative to host/).
var guests = map[string]string{
	"hostile":        "./testdata/guests/hostile",
	"sdkguest":       "./testdata/guests/sdkguest",
	"nothing":        "./testdata/guests/nothing",
	"team-section":   "../plugins/examples/team-section",
	"policy-guard":   "../plugins/examples/policy-guard",
	"yes-no":         "../plugins/examples/yes-no",
	"greeter":        "../plugins/examples/greeter",
	"standup":        "../plugins/examples/standup",
	"git-branch":     "../plugins/examples/git-branch",
	"redact-secrets": "../plugins/examples/redact-secrets",
}

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	tmp, err := os.MkdirTemp("", "pi-host-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(tmp)
	wasmDir = filepath.Join(tmp, "wasm")
	agentDir = filepath.Join(tmp, "agent")
	projectRoot = filepath.Join(tmp, "project")
	if err := buildGuests(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := stageExamples(tmp); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := makeProject(tmp); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	testRT, err = NewRuntime(context.Background(), Config{AgentDir: agentDir, ProjectRoot: projectRoot, Log: logs.add})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer testRT.Close(context.Background())
	return m.Run()
}

// asGuests are the AssemblyScript examples (built by `make plugins`, or
// here through scripts/build-as.sh when their module is missing).
var asGuests = []string{"team-section-as"}

// buildGuests builds every fixture with the standard toolchain, two at a
// time (the machines have two cores).
func buildGuests() error {
	if err := os.MkdirAll(wasmDir, 0o755); err != nil {
		return err
	}
	for _, name := range asGuests {
		dir := filepath.Join("..", "plugins", "examples", name)
		wasm := filepath.Join(dir, name+".wasm")
		if _, err := os.Stat(wasm); err != nil {
			cmd := exec.Command(filepath.Join("..", "scripts", "build-as.sh"), dir)
			if out, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("building %s (AssemblyScript; needs npm): %v\n%s", name, err, out)
			}
		}
		b, err := os.ReadFile(wasm)
		if err != nil {
			// build-as.sh said what it skipped (no npm or registry): the
			// tests of this guest skip (examplePkg), the rest run.
			continue
		}
		if err := os.WriteFile(filepath.Join(wasmDir, name+".wasm"), b, 0o644); err != nil {
			return err
		}
	}
	sem := make(chan struct{}, 2)
	errs := make(chan error, len(guests))
	var wg sync.WaitGroup
	for name, src := range guests {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			cmd := exec.Command("go", "build", "-buildmode=c-shared", "-o", filepath.Join(wasmDir, name+".wasm"), src)
			cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Errorf("building %s: %v\n%s", name, err, out)
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// makeProject lays out the project tree pi_read_file works against:
//
//	project/.git/HEAD        ref: refs/heads/feature/x
//	project/allowed.txt      granted
//	project/secret.txt       not granted
//	project/link-out.txt  -> ../outside.txt (outside the project)
//	project/link-in.txt   -> secret.txt (inside, but not granted)
//	outside.txt
func makeProject(tmp string) error {
	files := map[string]string{
		"project/.git/HEAD":   "ref: refs/heads/feature/x\n",
		"project/allowed.txt": "allowed content",
		"project/secret.txt":  "SECRET",
		"outside.txt":         "OUTSIDE",
	}
	for p, c := range files {
		full := filepath.Join(tmp, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			return err
		}
	}
	if err := os.Symlink("../outside.txt", filepath.Join(projectRoot, "link-out.txt")); err != nil {
		return err
	}
	return os.Symlink("secret.txt", filepath.Join(projectRoot, "link-in.txt"))
}

// pkg writes a package directory holding manifest and the fixture module
// (hard-linked when possible) and returns its path.
func pkg(t testing.TB, fixture, manifest string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "pkg")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "extension.yaml"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	name := ""
	for _, l := range strings.Split(manifest, "\n") {
		if v, ok := strings.CutPrefix(l, "name: "); ok {
			name = strings.TrimSpace(v)
		}
	}
	if fixture != "" {
		linkOrCopy(t, filepath.Join(wasmDir, fixture+".wasm"), filepath.Join(dir, name+".wasm"))
	}
	return dir
}

func linkOrCopy(t testing.TB, src, dst string) {
	t.Helper()
	if os.Link(src, dst) == nil {
		return
	}
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// examplePkg returns a package directory for an example plugin: its own
// manifest next to the module built in TestMain.
func examplePkg(t testing.TB, name string) string {
	t.Helper()
	if slices.Contains(asGuests, name) {
		if _, err := os.Stat(filepath.Join(wasmDir, name+".wasm")); err != nil {
			t.Skipf("skipped: %s.wasm is not built (AssemblyScript needs npm and its registry); make plugins builds it", name)
		}
	}
	m, err := os.ReadFile(filepath.Join("..", "plugins", "examples", name, "extension.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return pkg(t, name, string(m))
}

// load loads dirs on the shared runtime and fails on any diagnostic other
// than grant notices.
func load(t testing.TB, grants Grants, dirs ...string) []*Extension {
	t.Helper()
	exts, diags := testRT.Load(context.Background(), dirs, grants)
	for _, d := range diags {
		if d.Kind != DiagGrant {
			t.Fatalf("diagnostic: %s", d)
		}
	}
	if len(exts) != len(dirs) {
		t.Fatalf("loaded %d of %d", len(exts), len(dirs))
	}
	t.Cleanup(func() {
		for _, e := range exts {
			e.Close(context.Background())
		}
	})
	return exts
}

func load1(t testing.TB, fixture, manifest string) *Extension {
	return load(t, nil, pkg(t, fixture, manifest))[0]
}
