package goinstall

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"net"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/piwasm/pi/internal/scripted"
)

const (
	module  = "github.com/piwasm/pi"
	release = "v0.99.0" // a version no real release uses
)

// TestGoInstall serves the checkout as module github.com/piwasm/pi@v0.99.0
// from a file:// proxy (every other module from the real module cache,
// then the network), installs cmd/pi with `go install …@v0.99.0` into an
// empty GOPATH, and runs the installed binary: --version names the
// release, and -p answers through a loopback model.
func TestGoInstall(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped in -short: installs pi from a module proxy")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(gomod, []byte("\nreplace ")) || bytes.Contains(gomod, []byte("\nreplace(")) {
		t.Skip("skipped: go.mod still has replace directives, which go install …@version refuses; this test runs once third_party/ is gone")
	}
	if c, err := net.DialTimeout("tcp", "proxy.golang.org:443", 5*time.Second); err != nil {
		t.Skipf("skipped: the Go module proxy is unreachable (%v)", err)
	} else {
		c.Close()
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("skipped: go is not on PATH")
	}
	modcache := strings.TrimSpace(run(t, root, nil, gobin, "env", "GOMODCACHE"))

	// The module as a proxy serves it: list, .info, .mod and .zip.
	proxy := t.TempDir()
	vdir := filepath.Join(proxy, module, "@v")
	if err := os.MkdirAll(vdir, 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(vdir, "list"), release+"\n")
	write(t, filepath.Join(vdir, release+".info"), `{"Version":"`+release+`","Time":"2026-01-01T00:00:00Z"}`)
	write(t, filepath.Join(vdir, release+".mod"), string(gomod))
	writeZip(t, root, filepath.Join(vdir, release+".zip"))

	home := t.TempDir()
	gopath := filepath.Join(home, "gopath")
	env := []string{
		"HOME=" + home,
		"GOPATH=" + gopath,
		"GOMODCACHE=" + filepath.Join(gopath, "pkg", "mod"),
		"GOBIN=" + filepath.Join(home, "bin"),
		"GOPROXY=file://" + filepath.ToSlash(proxy) + ",file://" + filepath.ToSlash(filepath.Join(modcache, "cache", "download")) + ",https://proxy.golang.org",
		"GONOSUMDB=" + module,
		"GOFLAGS=-mod=mod",
		"GOTOOLCHAIN=local",
		"CGO_ENABLED=0",
	}
	run(t, home, env, gobin, "install", module+"/cmd/pi@"+release)
	pi := filepath.Join(home, "bin", "pi")
	if runtime.GOOS == "windows" {
		pi += ".exe"
	}
	// go clean -modcache would need write permission back.
	t.Cleanup(func() { exec.Command("chmod", "-R", "u+w", gopath).Run() })

	if got := strings.TrimSpace(run(t, home, env, pi, "--version")); got != strings.TrimPrefix(release, "v") {
		t.Errorf("pi --version = %q, want %q (from the build info)", got, strings.TrimPrefix(release, "v"))
	}

	srv := httptest.NewServer(&scripted.Server{Replies: []scripted.Reply{{Text: "installed and answering"}}})
	defer srv.Close()
	agent := filepath.Join(home, "agent")
	models := map[string]any{"providers": map[string]any{"mock": map[string]any{
		"baseUrl": srv.URL + "/v1", "api": "openai-completions", "apiKey": "k",
		"models": []map[string]string{{"id": "mock-1"}},
	}}}
	b, _ := json.Marshal(models)
	if err := os.MkdirAll(agent, 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(agent, "models.json"), string(b))
	out := run(t, home, append(env, "PI_CODING_AGENT_DIR="+agent, "PI_OFFLINE=1"), pi, "-p", "--no-session", "hello")
	if !strings.Contains(out, "installed and answering") {
		t.Errorf("pi -p printed %q, want the scripted reply", out)
	}
}

// run runs name in dir with env added to the environment and returns its
// standard output; it fails the test on a non-zero exit.
func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s%s", name, strings.Join(args, " "), err, out, stderr.Bytes())
	}
	return string(out)
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeZip writes the module zip of the checkout: the files git tracks,
// without nested modules (a directory with a go.mod of its own), under
// module@release/ as the proxy protocol lays them out.
func writeZip(t *testing.T, root, path string) {
	t.Helper()
	files, err := exec.Command("git", "-C", root, "ls-files", "-z").Output()
	if err != nil {
		t.Skipf("skipped: git ls-files: %v (the test needs a git checkout)", err)
	}
	names := strings.Split(strings.TrimRight(string(files), "\x00"), "\x00")
	nested := map[string]bool{}
	for _, n := range names {
		if d := filepath.Dir(n); filepath.Base(n) == "go.mod" && d != "." {
			nested[d] = true
		}
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zw := zip.NewWriter(f)
next:
	for _, n := range names {
		for d := filepath.Dir(n); d != "."; d = filepath.Dir(d) {
			if nested[d] {
				continue next
			}
		}
		b, err := os.ReadFile(filepath.Join(root, n))
		if err != nil {
			continue // deleted in the worktree
		}
		w, err := zw.Create(module + "@" + release + "/" + filepath.ToSlash(n))
		if err != nil {
			t.Fatal(err)
		}
		w.Write(b)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
}
