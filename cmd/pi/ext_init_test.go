package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/piwasm/pi"
)

// piBinary builds the pi command into a temporary directory.
func piBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "pi")
	cmd := goCmd(".", "build", "-o", bin, ".")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build pi: %v\n%s", err, b)
	}
	return bin
}

// offline runs name in dir the way a new author would, with no module
// proxy: GOPROXY=off, GOFLAGS=-mod=mod, a fresh agent dir.
func offline(t *testing.T, home, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	env := []string{"GOPROXY=off", "GOFLAGS=-mod=mod", "PI_CODING_AGENT_DIR=" + filepath.Join(home, "agent")}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "GOPROXY", "GOFLAGS", "GOOS", "GOARCH", "PI_CODING_AGENT_DIR":
			continue
		}
		env = append(env, kv)
	}
	cmd.Env = env
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s (in %s): %v\n%s", filepath.Base(name), strings.Join(args, " "), dir, err, b)
	}
	return string(b)
}

// TestExtInitOffline is the new author's path: in an empty directory,
// with no network, pi ext init → pi ext build → go test → pi ext test, using
// only the SDK the pi binary carries.
func TestExtInitOffline(t *testing.T) {
	if testing.Short() {
		t.Skip("builds pi and a guest")
	}
	bin := piBinary(t)
	home := t.TempDir()
	work := t.TempDir()
	out := offline(t, home, work, bin, "ext", "init", "demo")
	if !strings.Contains(out, "pi SDK "+pi.SDKVersion()) {
		t.Fatalf("init does not name the SDK version:\n%s", out)
	}
	demo := filepath.Join(work, "demo")
	version, err := os.ReadFile(filepath.Join(demo, "pi-sdk", "VERSION"))
	if err != nil || strings.TrimSpace(string(version)) != pi.SDKVersion() {
		t.Fatalf("pi-sdk/VERSION: %q %v", version, err)
	}
	if _, err := os.Stat(filepath.Join(demo, "pi-sdk", "sdk-guest", "harness.go")); err != nil {
		t.Fatal(err)
	}
	if matches, _ := filepath.Glob(filepath.Join(demo, "pi-sdk", "*", "*_test.go")); len(matches) > 0 {
		t.Fatalf("tests copied into the SDK: %v", matches)
	}
	// The package is a repository of its own, committed to between two
	// builds: the module must come out byte for byte the same (no
	// version-control stamp), so its pin and grant survive the commit.
	gitOK := gitRepo(t, home, demo)
	offline(t, home, demo, bin, "ext", "build")
	if gitOK {
		first, err := os.ReadFile(filepath.Join(demo, "demo.wasm"))
		if err != nil {
			t.Fatal(err)
		}
		offline(t, home, demo, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "second")
		offline(t, home, demo, bin, "ext", "build")
		second, err := os.ReadFile(filepath.Join(demo, "demo.wasm"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(first, second) {
			t.Error("a commit that changed no code changed the module pi ext build makes (version-control stamping?)")
		}
	}
	offline(t, home, demo, "go", "test", "-count=1", ".")
	res := offline(t, home, demo, bin, "ext", "test", "--json")
	var r struct {
		Extension string
		Result    struct {
			Ops []struct{ Op, Name, Text string }
		}
	}
	if err := json.Unmarshal([]byte(res), &r); err != nil {
		t.Fatalf("%v\n%s", err, res)
	}
	if r.Extension != "demo" || len(r.Result.Ops) != 1 || r.Result.Ops[0].Name != "demo" || r.Result.Ops[0].Text != "Hello from the demo extension." {
		t.Fatalf("%s", res)
	}
}

// TestExtInitAssemblyScript builds and runs the AssemblyScript scaffold
// (npm ci from its pinned lock file, then asc).
func TestExtInitAssemblyScript(t *testing.T) {
	if testing.Short() {
		t.Skip("runs npm ci and asc")
	}
	c := newCLI(t)
	dir := filepath.Join(t.TempDir(), "hello-as")
	c.must("ext", "init", "hello-as", "--lang", "assemblyscript", "--dir", dir)
	var pkg struct {
		DevDependencies map[string]string
		Scripts         map[string]string
	}
	b, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil || json.Unmarshal(b, &pkg) != nil {
		t.Fatalf("package.json: %v\n%s", err, b)
	}
	if pkg.DevDependencies["@extism/as-pdk"] != "1.0.0" || !strings.Contains(pkg.Scripts["build"], "--outFile hello-as.wasm") {
		t.Fatalf("package.json: %s", b)
	}
	c.must("ext", "build", dir)
	out := c.must("ext", "test", dir, "--json")
	var r struct {
		Result struct {
			Ops []struct{ Op, Name, Text string }
		}
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(r.Result.Ops) != 1 || r.Result.Ops[0].Name != "hello-as" || r.Result.Ops[0].Text != "Hello from the hello-as extension." {
		t.Fatalf("%s", out)
	}
}

// gitRepo makes dir a git repository with one commit, reporting false
// (and leaving dir as it was) when git is not installed.
func gitRepo(t *testing.T, home, dir string) bool {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		return false
	}
	offline(t, home, dir, "git", "init", "-q")
	offline(t, home, dir, "git", "add", "-A")
	offline(t, home, dir, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "first")
	return true
}
