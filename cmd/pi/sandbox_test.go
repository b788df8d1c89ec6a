package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/piwasm/pi/core/sandbox"
	"github.com/piwasm/pi/core/tool"
	"github.com/piwasm/pi/core/tool/builtin"
	"github.com/piwasm/pi/internal/hostile"
)

// TestMain lets the test binary act as pi's confining helper, as the real
// binary does from main().
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperArg {
		os.Exit(sandbox.RunHelper(os.Args[2:], os.Stderr))
	}
	if code, ok := hostile.Main(os.Args[1:], os.Stdout); ok {
		os.Exit(code)
	}
	// PI_TEST_AS_PI makes the test binary run as pi itself, so tests can
	// send it signals as a user's terminal would (see runAsPi).
	if os.Getenv("PI_TEST_AS_PI") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

func TestSandboxCheck(t *testing.T) {
	c := newCLI(t)
	// The temp dir is a writable root; keep it apart from the project.
	t.Setenv("TMPDIR", filepath.Join(c.home, "tmp"))
	proj := filepath.Join(c.home, "proj")
	writeFiles(t, c.agentDir, map[string]string{"settings.json": `{"sandbox":{"network":false,"writableRoots":["~/shared"]}}`})
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := c.run("sandbox", "check", "--json", "--cwd", proj)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got sandboxCheckJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got.Mode != sandbox.ModeWorkspace || got.Network {
		t.Errorf("mode %s network %v", got.Mode, got.Network)
	}
	roots := map[string]string{}
	for _, r := range got.WritableRoots {
		roots[r.Path] = r.Reason
	}
	realProj, _ := filepath.EvalSymlinks(proj)
	realHome, _ := filepath.EvalSymlinks(c.home)
	if roots[realProj] != "working tree" || !strings.HasPrefix(roots[filepath.Join(realHome, "shared")], "settings: ") {
		t.Errorf("roots %v", roots)
	}
	switch {
	case got.Enforced && got.SelfTest != "ok":
		t.Errorf("enforced but self-test %q", got.SelfTest)
	case !got.Enforced && (got.Notice == "" || runtime.GOOS == "linux" && got.Kernel.Reason == ""):
		t.Errorf("not enforced and no notice: %+v", got)
	}

	// Flags beat settings; the plain form names the mode.
	out, _, code = c.run("sandbox", "check", "--cwd", proj, "--sandbox", "read-only", "--sandbox-network", "on")
	if code != 0 || !regexp.MustCompile(`(?m)^mode +read-only$`).MatchString(out) || !regexp.MustCompile(`(?m)^network +on$`).MatchString(out) {
		t.Errorf("plain check: exit %d\n%s", code, out)
	}
	if _, errOut, code := c.run("sandbox", "check", "--sandbox", "loose"); code != exitUsage || !strings.Contains(errOut, "loose") {
		t.Errorf("bad mode: exit %d %s", code, errOut)
	}
	if _, _, code := c.run("sandbox"); code != exitUsage {
		t.Errorf("bare sandbox: exit %d", code)
	}

	// A broken sandbox setting is a warning naming the file; the rest runs.
	writeFiles(t, c.agentDir, map[string]string{"settings.json": `{"sandbox":{"mode":"everything"}}`})
	_, errOut, code = c.run("sandbox", "check", "--cwd", proj)
	if code != 0 || !strings.Contains(errOut, filepath.Join(c.agentDir, "settings.json")) || !strings.Contains(errOut, "everything") {
		t.Errorf("bad settings: exit %d stderr %q", code, errOut)
	}

	// require on a kernel that cannot enforce fails; where it can, it runs.
	_, errOut, code = c.run("sandbox", "check", "--cwd", proj, "--sandbox", "require")
	if got.Kernel.Landlock() && code != 0 || !got.Kernel.Landlock() && (code == 0 || !strings.Contains(errOut, "cannot be enforced")) {
		t.Errorf("require: exit %d %s", code, errOut)
	}
}

// TestDemoDevelopmentInWorkspaceMode runs the demo project's ordinary
// commands through the real bash tool in the default sandbox, with the real
// home and caches. The demo keeps a deliberate bug for `make run` to fix, so
// go test is compared with an unconfined run rather than required to pass.
func TestDemoDevelopmentInWorkspaceMode(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go tool")
	}
	demo, err := filepath.Abs("../../examples/demo")
	if err != nil {
		t.Fatal(err)
	}
	home, _ := os.UserHomeDir()
	policy := func(mode string) *sandbox.Policy {
		p, err := sandbox.Build(sandbox.Inputs{Flags: sandbox.Flags{Mode: mode}, Cwd: demo, Home: home, Tmp: os.TempDir(), Getenv: os.Getenv})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	p := policy("workspace")
	if !p.Confined() {
		if p.Notice() == "" {
			t.Fatal("unconfined policy without a notice")
		}
		t.Logf("kernel cannot confine: %s", p.Notice())
	}
	bash := func(p *sandbox.Policy, script string) tool.Result {
		exe, _ := os.Executable()
		for _, tl := range p.AnnotateBash(builtin.Tools(p.Apply(builtin.Env{Cwd: demo}, exe))) {
			if tl.Name == "bash" {
				res, err := tl.Run(context.Background(), tool.Call{ID: "1", Name: "bash", Args: map[string]any{"command": script, "timeout": float64(300)}}, nil)
				if err != nil {
					t.Fatal(err)
				}
				return res
			}
		}
		t.Fatal("no bash tool")
		return tool.Result{}
	}

	script := "set -e; go vet ./... && go build -o /dev/null ./src && test -z \"$(gofmt -l .)\""
	// The npm and pip caches, where those tools are installed, take writes
	// (npm cache verify itself is too slow for a test on a big cache).
	if _, err := exec.LookPath("npm"); err == nil {
		script += ` && d=$(npm config get cache) && mkdir -p "$d/_pi_probe" && rmdir "$d/_pi_probe"`
	}
	if _, err := exec.LookPath("pip3"); err == nil {
		script += ` && d=$(pip3 cache dir) && mkdir -p "$d/_pi_probe" && rmdir "$d/_pi_probe"`
	}
	script += " && echo demo-ok"
	if res := bash(p, script); res.IsError || !strings.Contains(res.Text(), "demo-ok") {
		t.Errorf("demo development commands failed in workspace mode:\n%s", res.Text())
	}

	failures := regexp.MustCompile(`(?m)^\s*--- FAIL: \S+|^ok\s+\S+|^FAIL\s+\S+`)
	confined := bash(p, "go test -count=1 ./...")
	plain := bash(policy("off"), "go test -count=1 ./...")
	if confined.IsError != plain.IsError || strings.Join(failures.FindAllString(confined.Text(), -1), "\n") != strings.Join(failures.FindAllString(plain.Text(), -1), "\n") {
		t.Errorf("go test differs in workspace mode:\n--- confined\n%s\n--- unconfined\n%s", confined.Text(), plain.Text())
	}
	if regexp.MustCompile(`(?i)permission denied|read-only file system|operation not permitted|sandbox`).MatchString(confined.Text()) {
		t.Errorf("go test hit the sandbox:\n%s", confined.Text())
	}
}

// BenchmarkSandboxBashCall is the sandbox's added cost per bash call
// through the real bash tool: compare /off with /workspace. The test
// binary stands in for pi as the helper.
func BenchmarkSandboxBashCall(b *testing.B) {
	dir := b.TempDir()
	exe, _ := os.Executable()
	for _, mode := range []string{"off", "workspace"} {
		p, err := sandbox.Build(sandbox.Inputs{Flags: sandbox.Flags{Mode: mode}, Cwd: dir, Home: dir, Tmp: os.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		var bash tool.Tool
		for _, tl := range builtin.Tools(p.Apply(builtin.Env{Cwd: dir}, exe)) {
			if tl.Name == "bash" {
				bash = tl
			}
		}
		b.Run(mode, func(b *testing.B) {
			for b.Loop() {
				res, err := bash.Run(context.Background(), tool.Call{ID: "1", Name: "bash", Args: map[string]any{"command": "true"}}, nil)
				if err != nil || res.IsError {
					b.Fatalf("%v %+v", err, res)
				}
			}
		})
	}
}
