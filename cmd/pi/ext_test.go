package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/piwasm/pi/abi"
	"github.com/piwasm/pi/core/diag"
	"github.com/piwasm/pi/host"
)

// runExt runs pi in-process like cli.run, with a given stdin, terminal
// flag and working directory.
func (c *cli) runExt(stdin string, terminal bool, wd string, args ...string) (stdout, stderr string, code int) {
	c.t.Helper()
	var out, errb bytes.Buffer
	a := &app{
		stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb,
		getenv: func(k string) string {
			if k == "PI_CODING_AGENT_DIR" {
				return c.agentDir
			}
			return ""
		},
		home: c.home, wd: wd, isTerminal: terminal,
	}
	code = a.run(context.Background(), args)
	return out.String(), errb.String(), code
}

// must runs pi and fails the test unless it exits 0.
func (c *cli) must(args ...string) string {
	c.t.Helper()
	out, errs, code := c.run(args...)
	if code != 0 {
		c.t.Fatalf("pi %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, out, errs)
	}
	return out
}

// goCmd runs the go command in dir for the host platform.
func goCmd(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GOOS=") && !strings.HasPrefix(kv, "GOARCH=") {
			env = append(env, kv)
		}
	}
	cmd.Env = env
	return cmd
}

// extModule makes a Go module outside the repository that requires
// github.com/piwasm/pi through a replace directive: the setup an author
// outside this repository has (with the network traded for the local
// checkout and a copy of go.sum).
func extModule(t *testing.T) string {
	t.Helper()
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(repo, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	gosum, err := os.ReadFile(filepath.Join(repo, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	mod := strings.Replace(string(gomod), "module github.com/piwasm/pi", "module example.com/exttest", 1)
	mod += "\nrequire github.com/piwasm/pi v0.0.0\n\nreplace github.com/piwasm/pi => " + repo + "\n"
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join(repo, "plugins", "examples", "git-branch", "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	manifest, err := os.ReadFile(filepath.Join(repo, "plugins", "examples", "git-branch", "extension.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{
		"go.mod":                    mod,
		"go.sum":                    string(gosum),
		"git-branch/main.go":        string(src),
		"git-branch/extension.yaml": string(manifest),
	})
	return dir
}

type inspectOut struct {
	Name, Version, SHA256 string
	Size                  int
	Hooks, Exports        []string
	Limits                struct{ TimeoutMs, MemoryMiB, OutputKiB int }
	Failure               string
	CompileMs             float64
	CachedCompileMs       float64
	Loads                 bool
	Grant                 struct{ Stored, Matches bool }
	Requested             struct{ Files []string }
}

type listOut struct {
	Extensions []struct {
		Name, Version, Dir, Source, SHA256 string
		Loaded, StaleGrant                 bool
		Hooks                              []string
		Requested, Granted                 struct{ Files []string }
	}
	Diagnostics []diag.Diagnostic
}

func (c *cli) list(args ...string) listOut {
	c.t.Helper()
	var l listOut
	out := c.must(append([]string{"ext", "list", "--json"}, args...)...)
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		c.t.Fatalf("ext list: %v\n%s", err, out)
	}
	return l
}

func (l listOut) names() string {
	var n []string
	for _, e := range l.Extensions {
		n = append(n, e.Source+":"+e.Name)
	}
	return strings.Join(n, ",")
}

// TestExtLifecycle walks an extension from scaffold to removal. The two
// WASM builds (the scaffold and git-branch) happen once, here, and every
// step after them shares the modules and the compilation cache.
func TestExtLifecycle(t *testing.T) {
	t.Setenv("GOPROXY", "off") // everything comes from the module cache
	c := newCLI(t)
	mod := extModule(t)
	hello := filepath.Join(mod, "hello")
	gitBranch := filepath.Join(mod, "git-branch")

	// init
	out := c.must("ext", "init", "hello", "--dir", hello)
	for _, f := range []string{"extension.yaml", "main.go", "main_test.go", "event.json"} {
		if !strings.Contains(out, filepath.Join(hello, f)) {
			t.Errorf("init did not report %s:\n%s", f, out)
		}
	}
	if _, errs, code := c.run("ext", "init", "hello", "--dir", hello); code != 1 || !strings.Contains(errs, "refusing to overwrite") {
		t.Fatalf("init over an existing package: exit %d %q", code, errs)
	}

	// build: both packages, each once.
	var built [2]buildResult
	for i, dir := range []string{hello, gitBranch} {
		out := c.must("ext", "build", dir, "--json")
		if err := json.Unmarshal([]byte(out), &built[i]); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(built[i].Module)
		if err != nil || int(fi.Size()) != built[i].Size || len(built[i].SHA256) != 64 {
			t.Fatalf("build %s: %+v (%v)", dir, built[i], err)
		}
	}
	if built[0].Module != filepath.Join(hello, "hello.wasm") {
		t.Fatalf("module path %s", built[0].Module)
	}
	plain, _, _ := c.run("ext", "build", "--help")
	if !strings.Contains(plain, "go.mod") {
		t.Error("build --help must tell authors outside the repository about go.mod")
	}

	t.Run("scaffold test passes", func(t *testing.T) {
		if testing.Short() {
			t.Skip("runs go test on the scaffold")
		}
		// The check init wrote must pass as written.
		cmd := goCmd(hello, "test", "-count=1", ".")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go test in the scaffold: %v\n%s", err, b)
		}
	})

	t.Run("inspect", func(t *testing.T) {
		out := c.must("ext", "inspect", hello, "--json")
		var r inspectOut
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		if r.Name != "hello" || r.Version != "0.1.0" || r.SHA256 != built[0].SHA256 || r.Size != built[0].Size || !r.Loads {
			t.Fatalf("%+v", r)
		}
		if r.Limits.TimeoutMs != abi.DefaultTimeoutMs || r.Limits.MemoryMiB != 64 || r.Failure != "skip" {
			t.Errorf("effective limits and policy: %+v", r)
		}
		if !strings.Contains(strings.Join(r.Exports, ","), "pi_before_agent_start") || r.CompileMs <= 0 || r.CachedCompileMs <= 0 {
			t.Errorf("exports %v, compile %.1fms, cached %.1fms", r.Exports, r.CompileMs, r.CachedCompileMs)
		}
		if r.Grant.Stored {
			t.Error("no grant was stored yet")
		}
		text := c.must("ext", "inspect", gitBranch)
		for _, want := range []string{"requests    file .git/HEAD", "grant       none stored", "sha256      " + built[1].SHA256} {
			if !strings.Contains(text, want) {
				t.Errorf("inspect text lacks %q:\n%s", want, text)
			}
		}
	})

	proj := t.TempDir()
	writeFiles(t, proj, map[string]string{".git/HEAD": "ref: refs/heads/feature/x\n"})

	t.Run("test", func(t *testing.T) {
		out := c.must("ext", "test", hello, "--hook", "before_agent_start", "--event", filepath.Join(hello, "event.json"), "--json")
		var r struct {
			Extension, Hook string
			Result          struct {
				Ops []struct{ Op, Name, Text string }
			}
			FirstCallMs, WarmCallMs float64
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		if r.Extension != "hello" || len(r.Result.Ops) != 1 || r.Result.Ops[0].Name != "hello" || r.FirstCallMs <= 0 || r.WarmCallMs <= 0 {
			t.Fatalf("%s", out)
		}
		// The event from stdin, plain output: the result, then the timings.
		out, errs, code := c.runExt(`{"input":"hi"}`, false, c.home, "ext", "test", hello, "--hook", "before_agent_start", "--event", "-")
		if code != 0 || !strings.Contains(out, `"op": "set_section"`) || !strings.Contains(out, "first call") || !strings.Contains(out, "warm call") {
			t.Fatalf("exit %d\n%s%s", code, out, errs)
		}
		// git-branch reads .git/HEAD only when granted.
		ev := `{"input":"hi"}`
		out, errs, code = c.runExt(ev, false, proj, "ext", "test", gitBranch, "--hook", "before_agent_start", "--event", "-", "--json")
		if code != 0 || strings.Contains(out, "feature/x") || !strings.Contains(out, "permission denied") {
			t.Fatalf("without a grant: exit %d\n%s%s", code, out, errs)
		}
		out, errs, code = c.runExt(ev, false, proj, "ext", "test", gitBranch, "--hook", "before_agent_start", "--event", "-", "--grant", "--json")
		if code != 0 || !strings.Contains(out, `"value": "feature/x"`) {
			t.Fatalf("with --grant: exit %d\n%s%s", code, out, errs)
		}
		// A guest error names the extension and the cause: a copy of the
		// package that declares the input hook, which has no handler.
		bad := filepath.Join(t.TempDir(), "hello")
		manifest, _ := os.ReadFile(filepath.Join(hello, "extension.yaml"))
		wasm, _ := os.ReadFile(built[0].Module)
		writeFiles(t, bad, map[string]string{
			"extension.yaml": strings.Replace(string(manifest), "hooks: [before_agent_start]", "hooks: [before_agent_start, input]", 1),
			"hello.wasm":     string(wasm),
		})
		_, errs, code = c.runExt(`{"text":"x"}`, false, c.home, "ext", "test", bad, "--hook", "input", "--event", "-")
		if code != 1 || !strings.Contains(errs, `"hello"`) || !strings.Contains(errs, string(host.CauseGuestError)) {
			t.Fatalf("guest error: exit %d %q", code, errs)
		}
		// A hook the manifest does not declare, and an event of the wrong shape.
		if _, errs, code := c.runExt(`{"text":"x"}`, false, c.home, "ext", "test", hello, "--hook", "input", "--event", "-"); code != 1 || !strings.Contains(errs, "does not declare") {
			t.Fatalf("undeclared hook: exit %d %q", code, errs)
		}
		if _, errs, code := c.runExt(`{"nope":1}`, false, c.home, "ext", "test", hello, "--hook", "before_agent_start", "--event", "-"); code != 1 || !strings.Contains(errs, "nope") {
			t.Fatalf("bad event: exit %d %q", code, errs)
		}
	})

	t.Run("install, list, remove", func(t *testing.T) {
		if l := c.list("--cwd", proj); len(l.Extensions) != 0 {
			t.Fatalf("nothing installed yet: %s", l.names())
		}
		out := c.must("ext", "install", hello)
		if !strings.Contains(out, "installed hello 0.1.0") || !strings.Contains(out, "no capabilities") {
			t.Fatalf("%s", out)
		}
		// No terminal, no --yes: installed, but nothing granted.
		out = c.must("ext", "install", gitBranch)
		if !strings.Contains(out, ".git/HEAD") || !strings.Contains(out, "--grant git-branch") {
			t.Fatalf("install must show the request and how to grant later:\n%s", out)
		}
		store, err := host.OpenGrantStore(c.agentDir)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := store.Get("git-branch"); ok {
			t.Fatal("a grant was stored without a terminal or --yes")
		}
		l := c.list("--cwd", proj)
		if l.names() != "agent:git-branch,agent:hello" || !l.Extensions[0].Loaded || len(l.Extensions[0].Granted.Files) != 0 || len(l.Extensions[0].Requested.Files) != 1 {
			t.Fatalf("%+v", l)
		}
		p := c.promptJSON("--cwd", proj)
		if strings.Contains(p.Text, "feature/x") || !strings.Contains(sectionNames(p), "hello") {
			t.Fatalf("installed, ungranted: sections %s", sectionNames(p))
		}
		if _, errs, code := c.run("ext", "install", gitBranch, "--force"); code != 0 {
			t.Fatal(errs)
		}

		// --yes records the grant, pinned to the module.
		out = c.must("ext", "install", gitBranch, "--yes")
		if !strings.Contains(out, "already installed") || !strings.Contains(out, "granted file .git/HEAD") {
			t.Fatalf("%s", out)
		}
		store, _ = host.OpenGrantStore(c.agentDir)
		if g, ok := store.Get("git-branch"); !ok || g.SHA256 != built[1].SHA256 || len(g.Files) != 1 {
			t.Fatalf("stored grant %+v %v", g, ok)
		}
		l = c.list("--cwd", proj)
		if gb := l.Extensions[0]; len(gb.Granted.Files) != 1 || gb.StaleGrant {
			t.Fatalf("%+v", gb)
		}
		if p := c.promptJSON("--cwd", proj); !strings.Contains(p.Text, "Current git branch: feature/x") {
			t.Fatalf("granted git-branch did not add its section: %s", sectionNames(p))
		}
		out = c.must("ext", "inspect", gitBranch)
		if !strings.Contains(out, "stored, matches this module") {
			t.Fatalf("%s", out)
		}

		// A changed module (a custom section appended: still valid) needs
		// --force, keeps nothing of the old grant, and asks once on a
		// terminal.
		changed := filepath.Join(t.TempDir(), "git-branch")
		manifest, _ := os.ReadFile(filepath.Join(gitBranch, "extension.yaml"))
		wasm, _ := os.ReadFile(built[1].Module)
		writeFiles(t, changed, map[string]string{
			"extension.yaml":  string(manifest),
			"git-branch.wasm": string(wasm) + "\x00\x04\x03pix",
		})
		if _, errs, code := c.run("ext", "install", changed); code != 1 || !strings.Contains(errs, "--force") {
			t.Fatalf("replacing without --force: exit %d %q", code, errs)
		}
		out, errs, code := c.runExt("n\n", true, c.home, "ext", "install", changed, "--force")
		if code != 0 || !strings.Contains(errs, "[y/N]") || !strings.Contains(out, "not granted") {
			t.Fatalf("terminal, answered n: exit %d\n%s%s", code, out, errs)
		}
		l = c.list("--cwd", proj)
		if gb := l.Extensions[0]; !gb.StaleGrant || len(gb.Granted.Files) != 0 {
			t.Fatalf("after the module changed: %+v", gb)
		}
		if !strings.Contains(c.must("ext", "list", "--cwd", proj), "another build") {
			t.Error("plain list must say the grant is stale")
		}
		out, errs, code = c.runExt("y\n", true, c.home, "ext", "install", changed)
		if code != 0 || !strings.Contains(out, "granted file .git/HEAD") {
			t.Fatalf("terminal, answered y: exit %d\n%s%s", code, out, errs)
		}
		if gb := c.list("--cwd", proj).Extensions[0]; gb.StaleGrant || len(gb.Granted.Files) != 1 {
			t.Fatalf("after granting on the terminal: %+v", gb)
		}

		// --project installs into the project; it loads only when trusted.
		if out := c.must("ext", "install", hello, "--project", "--cwd", proj); !strings.Contains(out, "pi trust "+proj) {
			t.Fatalf("install --project does not say how to trust the project:\n%s", out)
		}
		if _, err := os.Stat(filepath.Join(proj, ".pi", "extensions", "hello", "hello.wasm")); err != nil {
			t.Fatal(err)
		}
		if got := c.list("--cwd", proj).names(); got != "agent:git-branch,agent:hello" {
			t.Fatalf("untrusted project: %s", got)
		}
		l = c.list("--cwd", proj, "--approve")
		if got := l.names(); got != "agent:git-branch,agent:hello,project:hello" || l.Extensions[2].Loaded {
			t.Fatalf("trusted project (the second hello is a duplicate): %s %+v", got, l.Extensions)
		}
		c.must("ext", "remove", "hello", "--project", "--cwd", proj)

		// remove deletes the package and its grant.
		out = c.must("ext", "remove", "git-branch")
		if !strings.Contains(out, "removed") || !strings.Contains(out, "grant") {
			t.Fatalf("%s", out)
		}
		store, _ = host.OpenGrantStore(c.agentDir)
		if _, ok := store.Get("git-branch"); ok {
			t.Fatal("grant survived remove")
		}
		if got := c.list("--cwd", proj).names(); got != "agent:hello" {
			t.Fatalf("after remove: %s", got)
		}
		if _, errs, code := c.run("ext", "remove", "git-branch"); code != 1 || !strings.Contains(errs, "git-branch") {
			t.Fatalf("second remove: exit %d %q", code, errs)
		}
	})

	t.Run("install needs a built module", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "unbuilt")
		manifest, _ := os.ReadFile(filepath.Join(hello, "extension.yaml"))
		writeFiles(t, dir, map[string]string{"extension.yaml": string(manifest)})
		_, errs, code := c.run("ext", "install", dir)
		if code != 1 || !strings.Contains(errs, "pi ext build") {
			t.Fatalf("exit %d %q", code, errs)
		}
	})
}

func TestExtUsage(t *testing.T) {
	c := newCLI(t)
	dir := t.TempDir()
	for _, args := range [][]string{
		{"ext", "bogus"},
		{"ext", "--bogus"},
		{"ext", "init"},
		{"ext", "init", "Bad_Name"},
		{"ext", "init", "a", "b"},
		{"ext", "build", "a", "b"},
		{"ext", "inspect", dir, "--nope"},
		{"ext", "test", dir, dir},
		{"ext", "init", "x", "--lang", "cobol"},
		{"ext", "test", dir, "--hook", "nope", "--event", "-"},
		{"ext", "test", dir, "--hook", "input"},
		{"ext", "list", "extra"},
		{"ext", "install"},
		{"ext", "install", dir, "--cwd", dir},
		{"ext", "remove", "../etc"},
		{"ext", "remove"},
	} {
		_, errs, code := c.run(args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (%q)", args, code, errs)
		}
		if !strings.HasPrefix(errs, "pi: ") || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: want one line on stderr, got %q", args, errs)
		}
	}
	for _, args := range [][]string{{"ext"}, {"ext", "--help"}, {"ext", "help"}} {
		out, _, code := c.run(args...)
		if code != 0 || !strings.Contains(out, "install PATH") {
			t.Errorf("%v: exit %d\n%s", args, code, out)
		}
	}
	for _, sub := range []string{"init", "build", "inspect", "test", "list", "install", "remove"} {
		out, _, code := c.run("ext", sub, "--help")
		if code != 0 || !strings.HasPrefix(out, "Usage: pi ext "+sub) {
			t.Errorf("ext %s --help: exit %d\n%s", sub, code, out)
		}
	}
	// Packages that are not there are failures, not usage errors.
	if _, errs, code := c.run("ext", "inspect", dir); code != 1 || !strings.Contains(errs, "extension.yaml") {
		t.Errorf("inspect of an empty dir: exit %d %q", code, errs)
	}
	if _, errs, code := c.run("ext", "build", dir); code != 1 || !strings.Contains(errs, "extension.yaml") {
		t.Errorf("build of an empty dir: exit %d %q", code, errs)
	}
}
