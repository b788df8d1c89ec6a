package sandbox_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/piwasm/pi/core/sandbox"
)

// TestHelperAsAnotherUser runs confined commands as a user other than
// root (the usual case), which keeps no capability across the helper's
// execve even in the namespace it owns: without the ambient CAP_SYS_ADMIN
// pi hands it, its mounts fail and no command runs at all. It needs root
// (to become nobody) and setpriv; the work is in
// TestHelperAsAnotherUserInner, run as nobody from a world-readable copy
// of this test binary.
func TestHelperAsAnotherUser(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to run as another user (as another user, every other test here is this test)")
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skip("setpriv is not installed")
	}
	dir, err := os.MkdirTemp("", "pi-nonroot-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	exe, _ := os.Executable()
	copyTo := filepath.Join(dir, "sandbox.test")
	src, err := os.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	dst, err := os.OpenFile(copyTo, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.Copy(dst, src)
	src.Close()
	if cerr := dst.Close(); err != nil || cerr != nil {
		t.Fatal(err, cerr)
	}
	tree, home := filepath.Join(dir, "tree"), filepath.Join(dir, "home")
	for _, d := range []string{filepath.Join(tree, ".git", "hooks"), home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{dir, tree, filepath.Join(tree, ".git"), filepath.Join(tree, ".git", "hooks"), home} {
		if err := os.Chown(d, 65534, 65534); err != nil {
			t.Fatal(err)
		}
	}
	os.Chmod(dir, 0o755)
	cmd := exec.Command(setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", copyTo, "-test.run=^TestHelperAsAnotherUserInner$", "-test.v")
	cmd.Env = append(os.Environ(), "PI_SANDBOX_NONROOT_TREE="+tree, "HOME="+home, "TMPDIR="+home)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestHelperAsAnotherUserInner") {
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
	t.Logf("as nobody:\n%s", out)
}

func TestHelperAsAnotherUserInner(t *testing.T) {
	tree := os.Getenv("PI_SANDBOX_NONROOT_TREE")
	if tree == "" {
		t.Skip("run by TestHelperAsAnotherUser")
	}
	home := os.Getenv("HOME")
	p, err := sandbox.Build(sandbox.Inputs{Cwd: tree, Home: home, Tmp: home})
	if err != nil {
		t.Fatal(err)
	}
	if !p.Confined() || !p.Enforcement().MountNS {
		t.Skip("no confinement or no user namespaces for this user here")
	}
	exe, _ := os.Executable()
	script := `touch ok || exit 3; touch .git/hooks/x 2>/dev/null && exit 4; grep -q '^CapEff:[[:space:]]*0*$' /proc/self/status || exit 5; echo fine`
	cmd, err := sandbox.Shell{Policy: p, Exe: exe}.Command(context.Background(), script, tree, nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "fine" {
		t.Fatalf("%v: %s", err, out)
	}
	// The allow-list mode's network namespace needs CAP_NET_ADMIN there
	// to bring up loopback for its forwarder.
	if _, err := exec.LookPath("curl"); err != nil {
		return
	}
	al, err := sandbox.Build(sandbox.Inputs{Settings: sandbox.Settings{NetAllow: []string{"localhost"}}, Cwd: tree, Home: home, Tmp: home})
	if err != nil {
		t.Fatal(err)
	}
	defer al.Close()
	if !al.Enforced() {
		return
	}
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "through") }))
	defer backend.Close()
	_, port, _ := net.SplitHostPort(backend.Listener.Addr().String())
	cmd, err = sandbox.Shell{Policy: al, Exe: exe}.Command(context.Background(), "curl -sS --max-time 20 http://localhost:"+port+"/", tree, nil)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := cmd.CombinedOutput(); err != nil || string(out) != "through" {
		t.Fatalf("allow-list: %v: %s", err, out)
	}
	t.Log("allow-list command reached its host")
}
