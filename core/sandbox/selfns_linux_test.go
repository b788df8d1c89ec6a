package sandbox

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/piwasm/pi/core/sandbox/confine"
	"github.com/piwasm/pi/internal/makerun"
)

// testHelpers builds cmd/pi-sandbox as `make build` does (with its entry
// point, where the Makefile has one for this platform) and without it,
// through the Makefile's helper target, the one place its link flags are,
// with an empty build stamp: the test binary's.
func testHelpers(t *testing.T) (entry, noEntry string) {
	t.Helper()
	dir := worldReadableTempDir(t) // for the row that runs as nobody
	entry, noEntry = filepath.Join(dir, "with-entry"), filepath.Join(dir, "no-entry")
	for _, b := range [][]string{{"HELPER_OUT=" + entry}, {"HELPER_OUT=" + noEntry, "HELPER_ENTRY="}} {
		makerun.Run(t, "../..", append([]string{"helper", "STAMP="}, b...)...)
	}
	return entry, noEntry
}

// TestHelperStartPaths runs the same confined command through both ways
// pi starts its helper when commands get namespaces: cmd/pi-sandbox with
// its entry point creates them itself and is started with vfork
// ("self"), one without it is started in namespaces pi creates
// ("fallback"). Both must give the command the same confinement: its own
// user and mount namespace, pi's user and group mapped to themselves,
// setgroups denied, no capabilities (for a user other than root), the
// protected paths read-only and the denied ones hidden, pi's CPUs,
// killed with pi.
func TestHelperStartPaths(t *testing.T) {
	entry, noEntry := testHelpers(t)
	selfOK := runtime.GOARCH == "amd64" || runtime.GOARCH == "arm64" // the Makefile's -E platforms
	if got := selfNSWorks(entry); got != selfOK {
		t.Fatalf("the helper built with the Makefile's flags creates its own namespaces: %v, want %v", got, selfOK)
	}
	if selfNSWorks(noEntry) {
		t.Fatal("a helper without the entry point passed the probe")
	}
	exe, _ := os.Executable()
	hostUser, _ := os.Readlink("/proc/self/ns/user")
	hostMnt, _ := os.Readlink("/proc/self/ns/mnt")

	type row struct {
		name   string
		helper string
		self   bool
		uid    int // runs as this user (by Credential, as pi running as that user would)
	}
	rows := []row{{"fallback", noEntry, false, os.Getuid()}}
	if selfOK {
		rows = append(rows, row{"self", entry, true, os.Getuid()})
		if os.Getuid() == 0 {
			rows = append(rows, row{"self as nobody", entry, true, 65534})
		}
	}
	var outputs []string
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			dir := worldReadableTempDir(t)
			tree, home := filepath.Join(dir, "tree"), filepath.Join(dir, "home")
			for _, d := range []string{filepath.Join(tree, ".git", "hooks"), filepath.Join(home, ".ssh")} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(filepath.Join(home, ".ssh", "id_test"), []byte("SECRET\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			filepath.Walk(dir, func(p string, _ os.FileInfo, _ error) error { return os.Lchown(p, r.uid, r.uid) })
			p, err := Build(Inputs{Cwd: tree, Home: home, Tmp: home})
			if err != nil {
				t.Fatal(err)
			}
			if !p.Confined() || !p.mountNS() {
				t.Skip("no confinement or no user and mount namespaces here")
			}
			script := `readlink /proc/self/ns/user /proc/self/ns/mnt
cat /proc/self/uid_map /proc/self/gid_map /proc/self/setgroups
grep -E '^(CapInh|CapPrm|CapEff|CapAmb|NoNewPrivs|Seccomp|Cpus_allowed_list):' /proc/self/status
echo x > .git/hooks/pre-commit 2>/dev/null && echo wrote the hook
cat ` + home + `/.ssh/id_test 2>/dev/null
ls ` + home + `/.ssh 2>/dev/null
echo x > file && echo wrote the tree`
			cmd, err := helperCommandFor(r.helper, exe, p.spec(), "bash", "-c", script)
			if err != nil {
				t.Fatal(err)
			}
			if r.self && (cmd.Args[1] != confine.SelfNSArg || cmd.SysProcAttr.Cloneflags != 0 || cmd.SysProcAttr.UidMappings != nil || cmd.SysProcAttr.AmbientCaps != nil) {
				t.Fatalf("self: started with %s and %+v, want %s and no namespace flags (vfork)", cmd.Args[1], cmd.SysProcAttr, confine.SelfNSArg)
			}
			if !r.self && (cmd.Args[1] != HelperArg || cmd.SysProcAttr.Cloneflags&syscall.CLONE_NEWUSER == 0) {
				t.Fatalf("fallback: started with %s and %+v, want %s in new namespaces", cmd.Args[1], cmd.SysProcAttr, HelperArg)
			}
			if r.uid != os.Getuid() {
				asUser(t, cmd, r.uid)
			}
			cmd.Dir = tree
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			lines := strings.Split(strings.TrimSpace(string(out)), "\n")
			if len(lines) < 4 || lines[0] == hostUser || lines[1] == hostMnt || !strings.HasPrefix(lines[0], "user:") || !strings.HasPrefix(lines[1], "mnt:") {
				t.Fatalf("the command is not in a user and mount namespace of its own (pi's: %s %s):\n%s", hostUser, hostMnt, out)
			}
			idmap := fmt.Sprintf("%d %d 1", r.uid, r.uid)
			if strings.Join(strings.Fields(lines[2]), " ") != idmap || strings.Join(strings.Fields(lines[3]), " ") != idmap || lines[4] != "deny" {
				t.Errorf("id maps and setgroups: %q %q %q, want %q twice and deny", lines[2], lines[3], lines[4], idmap)
			}
			rest := strings.Join(lines[5:], "\n")
			// The CPUs it may run on are pi's (the entry point pins the
			// helper to one CPU while it starts, and gives them back).
			cpus := "Cpus_allowed_list:\t" + ownStatus(t, "Cpus_allowed_list")
			for _, want := range []string{"CapAmb:\t0000000000000000", "NoNewPrivs:\t1", "Seccomp:\t2", cpus, "wrote the tree"} {
				if !strings.Contains(rest, want) {
					t.Errorf("no %q in:\n%s", want, rest)
				}
			}
			if r.uid != 0 {
				for _, want := range []string{"CapInh:\t0000000000000000", "CapPrm:\t0000000000000000", "CapEff:\t0000000000000000"} {
					if !strings.Contains(rest, want) {
						t.Errorf("no %q in:\n%s", want, rest)
					}
				}
			}
			for _, bad := range []string{"wrote the hook", "SECRET", "id_test"} {
				if strings.Contains(rest, bad) {
					t.Errorf("%q: the protected path is writable or the denied one readable:\n%s", bad, rest)
				}
			}
			if r.uid == os.Getuid() {
				outputs = append(outputs, rest)
			}
			if py, err := exec.LookPath("python3"); err == nil && r.uid == os.Getuid() {
				// The helper's parent-death signal survives its
				// namespaces: the command it executes dies with pi.
				cmd, err := helperCommandFor(r.helper, exe, p.spec(), py, "-c", "import ctypes; s = ctypes.c_int(); ctypes.CDLL(None).prctl(2, ctypes.byref(s)); print(s.value)")
				if err != nil {
					t.Fatal(err)
				}
				if out, err := cmd.CombinedOutput(); err != nil || strings.TrimSpace(string(out)) != fmt.Sprint(int(syscall.SIGKILL)) {
					t.Errorf("parent-death signal: %v: %s, want %d", err, out, syscall.SIGKILL)
				}
			}
		})
	}
	if len(outputs) == 2 && outputs[0] != outputs[1] {
		t.Errorf("the two paths confine differently:\nfallback:\n%s\nself:\n%s", outputs[0], outputs[1])
	}
}

// ownStatus is the value of field in this process's /proc/self/status.
func ownStatus(t *testing.T, field string) string {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	t.Fatalf("no %s in /proc/self/status", field)
	return ""
}

// worldReadableTempDir is t.TempDir, which other users can enter.
func worldReadableTempDir(t *testing.T) string {
	dir := t.TempDir()
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// asUser makes cmd run as uid (and the same gid) with no supplementary
// groups, as it would under a pi run by that user, and fixes the ids its
// policy maps; the caller is root.
func asUser(t *testing.T, cmd *exec.Cmd, uid int) {
	t.Helper()
	var sp confine.Spec
	if err := json.Unmarshal([]byte(cmd.Args[2]), &sp); err != nil {
		t.Fatal(err)
	}
	sp.UID, sp.GID = uid, uid
	js, _ := json.Marshal(sp)
	cmd.Args[2] = string(js)
	cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid), Groups: []uint32{}}
}

// TestHelperSelfNSAllowList runs an allow-list command through the helper
// that creates its own namespaces: it enters its network namespace from
// Go, hands pi the listener there, and reaches only pi's proxy.
func TestHelperSelfNSAllowList(t *testing.T) {
	if runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64" {
		t.Skip("no helper entry point for " + runtime.GOARCH)
	}
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("curl is not installed")
	}
	entry, _ := testHelpers(t)
	tree := t.TempDir()
	p, err := Build(Inputs{Settings: Settings{NetAllow: []string{"localhost"}}, Cwd: tree, Home: tree, Tmp: tree})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if !p.Enforced() || !p.NetNamespace() || !selfNSWorks(entry) {
		t.Skip("no allow-list network namespace here")
	}
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "through") }))
	defer backend.Close()
	_, port, _ := net.SplitHostPort(backend.Listener.Addr().String())
	sp, env, err := p.commandSpec()
	if err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	hostNet, _ := os.Readlink("/proc/self/ns/net")
	script := `readlink /proc/self/ns/net; ` + curl + ` -sS --max-time 20 http://localhost:` + port + `/; echo; ` + curl + ` -sS --noproxy '*' --max-time 5 http://127.0.0.1:` + port + `/ 2>/dev/null || echo direct refused`
	cmd, err := helperCommandFor(entry, exe, sp, "bash", "-c", script)
	if err != nil {
		t.Fatal(err)
	}
	if cmd.Args[1] != confine.SelfNSArg || cmd.SysProcAttr.Cloneflags != 0 {
		t.Fatalf("started with %s and %+v, want %s and no namespace flags", cmd.Args[1], cmd.SysProcAttr, confine.SelfNSArg)
	}
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if err != nil || len(lines) != 3 || lines[0] == hostNet || lines[1] != "through" || lines[2] != "direct refused" {
		t.Fatalf("%v, want its own network namespace (pi's %s), the host through the proxy, and no direct connection:\n%s", err, hostNet, out)
	}
}

// TestHelperSelfNSRefusedByKernel: where the kernel refuses the entry
// point's unshare (here: in a chroot, where creating a user namespace is
// not allowed), the helper says so and runs nothing, and pi's probe
// fails, so pi would start it in namespaces of its own making instead.
func TestHelperSelfNSRefusedByKernel(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to chroot")
	}
	if runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64" {
		t.Skip("no helper entry point for " + runtime.GOARCH)
	}
	entry, _ := testHelpers(t)
	root := t.TempDir()
	data, err := os.ReadFile(entry)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "helper"), data, 0o755); err != nil {
		t.Fatal(err)
	}
	var spec strings.Builder
	if err := PrintSpec([]string{"/"}, &spec); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{confine.ProbeArg, "0", "0"},
		{strings.TrimSpace(spec.String()), "--", "/helper", "-stamp"},
	} {
		cmd := exec.Command("/helper", append([]string{confine.SelfNSArg}, args...)...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Chroot: root}
		cmd.Dir = "/"
		out, err := cmd.CombinedOutput()
		if code := cmd.ProcessState.ExitCode(); err == nil || code != 126 || !strings.Contains(string(out), "cannot create a user and mount namespace: operation not permitted") {
			t.Errorf("%s: exit %d (%v), want 126 and the kernel's refusal: %s", args[0][:min(len(args[0]), 10)], code, err, out)
		}
	}
}
