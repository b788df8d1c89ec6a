package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var repoRoot = filepath.Join("..", "..")

// buildGuest compiles the Go package in src into a wasip1 module at out.
func buildGuest(src, out string) error {
	cmd := exec.Command("go", "build", "-buildmode=c-shared", "-o", out, ".")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("build %s: %v\n%s", src, err, b)
	}
	return nil
}

// guestOnce is a test guest built from the Go package in src (relative
// to this package's directory) the first time a test asks for it; later
// calls return the same module.
func guestOnce(src string) func() (string, error) {
	return sync.OnceValues(func() (string, error) {
		dir, err := os.MkdirTemp("", "pi-"+filepath.Base(src)+"-")
		if err != nil {
			return "", err
		}
		out := filepath.Join(dir, filepath.Base(src)+".wasm")
		abs, err := filepath.Abs(src)
		if err != nil {
			return "", err
		}
		return out, buildGuest(abs, out)
	})
}

// pluginBuilds remembers, per example, the outcome of building it once.
var pluginBuilds sync.Map // name → func() error (from sync.OnceValue)

// examplePlugin returns the absolute directory of an example extension,
// building its module once if `make plugins` has not.
func examplePlugin(t *testing.T, name string) string { return examplePluginB(t, name) }

func examplePluginB(t testing.TB, name string) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join(repoRoot, "plugins", "examples", name))
	if err != nil {
		t.Fatal(err)
	}
	build, _ := pluginBuilds.LoadOrStore(name, sync.OnceValue(func() error {
		wasm := filepath.Join(dir, name+".wasm")
		if _, err := os.Stat(wasm); err == nil {
			return nil
		}
		if _, err := os.Stat(filepath.Join(dir, "package.json")); err == nil {
			// An AssemblyScript example: npm ci and asc, as `make plugins`.
			cmd := exec.Command(filepath.Join(repoRoot, "scripts", "build-as.sh"), dir)
			if b, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("build %s (AssemblyScript; needs npm): %v\n%s", dir, err, b)
			}
			if _, err := os.Stat(wasm); err != nil {
				// build-as.sh skipped it (no npm or registry) and said so.
				return errSkipBuild
			}
			return nil
		}
		return buildGuest(dir, wasm)
	}))
	if err := build.(func() error)(); errors.Is(err, errSkipBuild) {
		t.Skipf("skipped: %s.wasm is not built (AssemblyScript needs npm and its registry); make plugins builds it", name)
	} else if err != nil {
		t.Fatal(err)
	}
	return dir
}

// errSkipBuild: an AssemblyScript example could not be built for want of npm.
var errSkipBuild = errors.New("AssemblyScript example not built")

// The Go example and its AssemblyScript twin (stock Extism PDK) give the
// same prompt.
func TestPromptWithTeamSectionExtension(t *testing.T) {
	for _, name := range []string{"team-section", "team-section-as"} {
		t.Run(name, func(t *testing.T) {
			c := newCLI(t)
			proj := t.TempDir()
			p := c.promptJSON("--cwd", proj, "-e", examplePlugin(t, name))
			var found bool
			for i, s := range p.Sections {
				if s.Name != "team" {
					continue
				}
				found = true
				if s.Order != 250 || s.Source != "extension:"+name || !strings.HasPrefix(s.Text, "Our team reviews every change") {
					t.Fatalf("team section %+v", s)
				}
				if p.Sections[i-1].Name != "rules" || p.Sections[i+1].Name != "docs" {
					t.Fatalf("team section not between rules and docs: %s", sectionNames(p))
				}
			}
			if !found {
				t.Fatalf("no team section: %s (diagnostics %+v)", sectionNames(p), p.Diagnostics)
			}
		})
	}
}

func TestForcedPromptNeverWrittenToDisk(t *testing.T) {
	c := newCLI(t)
	srv, last := mockOpenAI(t)
	writeFiles(t, c.agentDir, map[string]string{"models.json": `{"providers":{"mock":{"baseUrl":"` + srv.URL + `/v1","api":"openai-completions","models":[{"id":"m"}]}}}`})
	proj := t.TempDir()
	yesNo := examplePlugin(t, "yes-no")
	out, errs, code := c.run("-p", "?is the sky blue", "--cwd", proj, "-e", yesNo)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if out == "" {
		t.Fatal("no reply printed")
	}
	msgs := last()["messages"].([]any)
	forced := msgs[0].(map[string]any)["content"].(string)
	if strings.HasPrefix(forced, "You are pi") {
		t.Fatal("the forced prompt did not reach the request")
	}
	// Nothing under the agent dir or the project may contain it, but for
	// a snapshot of the guest's initialised memory: the prompt is a
	// constant of the module, so the image holds it as the module's data
	// section does, as many times as the .wasm (the snapshot is taken
	// before any call, so a copy the call made would show as one more).
	wasm, err := os.ReadFile(filepath.Join(yesNo, "yes-no.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	inModule := strings.Count(string(wasm), forced)
	snapshots := filepath.Join(c.agentDir, "cache", "snapshots") + string(filepath.Separator)
	for _, root := range []string{c.agentDir, proj} {
		filepath.Walk(root, func(path string, info os.FileInfo, err error) error {
			if err != nil || info.IsDir() {
				return nil
			}
			data, _ := os.ReadFile(path)
			n := strings.Count(string(data), forced)
			if n > 0 && !(strings.HasPrefix(path, snapshots) && n <= inModule) {
				t.Errorf("forced prompt written to %s (%d times; the module holds it %d times)", path, n, inModule)
			}
			return nil
		})
	}
	// pi prompt --input shows it as what the next request carries.
	pj, _, _ := c.run("prompt", "--cwd", proj, "-e", yesNo, "--input", "?really", "--json")
	var v struct {
		Text   string
		Forced *struct{ Extension, Text string }
	}
	if err := json.Unmarshal([]byte(pj), &v); err != nil || v.Forced == nil || v.Forced.Extension != "yes-no" || v.Text != forced {
		t.Fatalf("prompt --input: %v %s", err, pj)
	}
}

func TestStandupCommandExpands(t *testing.T) {
	c := newCLI(t)
	out, errs, code := c.run("expand", "--cwd", t.TempDir(), "-e", examplePlugin(t, "standup"), "--json", "--", "/standup 3")
	if code != 0 {
		t.Fatal(errs)
	}
	var e struct{ Kind, Name, Text string }
	if err := json.Unmarshal([]byte(out), &e); err != nil {
		t.Fatal(err)
	}
	if e.Kind != "command" || e.Name != "standup" || !strings.Contains(e.Text, "3") {
		t.Fatalf("%+v", e)
	}
}

func TestPolicyGuardAbortsWhenBroken(t *testing.T) {
	// A copy of policy-guard whose module is garbage: with failure: abort the
	// run must stop with an error naming it rather than go on without policy.
	// The same copy marked skip only produces a diagnostic.
	c := newCLI(t)
	src := examplePlugin(t, "policy-guard")
	dir := filepath.Join(t.TempDir(), "policy-guard")
	manifest, _ := os.ReadFile(filepath.Join(src, "extension.yaml"))
	writeFiles(t, dir, map[string]string{"extension.yaml": string(manifest), "policy-guard.wasm": "\x00asm garbage"})
	_, errs, code := c.run("prompt", "--cwd", t.TempDir(), "-e", dir)
	if code != 1 || !strings.Contains(errs, "policy-guard") || !strings.Contains(errs, "abort") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	skip := strings.Replace(string(manifest), "\nfailure: abort", "\nfailure: skip", 1)
	writeFiles(t, dir, map[string]string{"extension.yaml": skip})
	_, errs, code = c.run("prompt", "--cwd", t.TempDir(), "-e", dir)
	if code != 0 || !strings.Contains(errs, "policy-guard") {
		t.Fatalf("skip policy: exit %d: %s", code, errs)
	}
}

// Memoised results must follow the files a guest reads: git-branch reads
// .git/HEAD, so changing it must change the prompt on the next run.
func TestMemoFollowsGrantedFiles(t *testing.T) {
	c := newCLI(t)
	proj := t.TempDir()
	writeFiles(t, proj, map[string]string{".git/HEAD": "ref: refs/heads/first\n"})
	gb := examplePlugin(t, "git-branch")
	branch := func() string {
		t.Helper()
		out, errs, code := c.run("prompt", "--cwd", proj, "-e", gb, "--grant", "git-branch")
		if code != 0 {
			t.Fatal(errs)
		}
		return out
	}
	if !strings.Contains(branch(), "Current git branch: first") {
		t.Fatal("branch missing")
	}
	if !strings.Contains(branch(), "Current git branch: first") {
		t.Fatal("memoised run differs")
	}
	writeFiles(t, proj, map[string]string{".git/HEAD": "ref: refs/heads/second\n"})
	if out := branch(); !strings.Contains(out, "Current git branch: second") {
		t.Fatalf("stale memo after .git/HEAD changed:\n%s", out)
	}
	// Without the grant the guest reads nothing: the memo must not serve
	// the granted result.
	out, _, _ := c.run("prompt", "--cwd", proj, "-e", gb)
	if strings.Contains(out, "Current git branch") {
		t.Fatal("granted result served without the grant")
	}
}

// On a terminal pi asks once per module about capabilities it has no stored
// decision for; the answer, yes or no, is stored pinned to the module.
func TestGrantsAskedOnceOnATerminal(t *testing.T) {
	c := newCLI(t)
	proj := t.TempDir()
	writeFiles(t, proj, map[string]string{".git/HEAD": "ref: refs/heads/asked\n"})
	gb := examplePlugin(t, "git-branch")
	run := func(answer string, terminal bool) (string, string) {
		t.Helper()
		var out, errb bytes.Buffer
		a := &app{stdin: strings.NewReader(answer), stdout: &out, stderr: &errb, isTerminal: terminal,
			getenv: func(k string) string {
				if k == "PI_CODING_AGENT_DIR" {
					return c.agentDir
				}
				return ""
			}, home: c.home, wd: proj}
		if code := a.run(context.Background(), []string{"prompt", "-e", gb}); code != 0 {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
		return out.String(), errb.String()
	}
	// Without a terminal: no question, nothing granted, nothing stored.
	out, errs := run("y\n", false)
	if strings.Contains(errs, "grant it?") || strings.Contains(out, "Current git branch") {
		t.Fatal("asked or granted without a terminal")
	}
	// A refusal is remembered: the next run does not ask again.
	out, errs = run("n\n", true)
	if !strings.Contains(errs, "grant it?") || strings.Contains(out, "Current git branch") {
		t.Fatalf("refusal: %s", errs)
	}
	if _, errs = run("y\n", true); strings.Contains(errs, "grant it?") {
		t.Fatal("asked again after a refusal")
	}
	// A changed module is asked about again; yes is stored and used.
	os.Remove(filepath.Join(c.agentDir, "grants.json"))
	out, errs = run("y\n", true)
	if !strings.Contains(errs, "grant it?") || !strings.Contains(out, "Current git branch: asked") {
		t.Fatalf("yes: %s\n%s", errs, out)
	}
	if out, errs = run("", true); strings.Contains(errs, "grant it?") || !strings.Contains(out, "Current git branch: asked") {
		t.Fatal("stored grant not used, or asked again")
	}
}
