//go:build linux

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/piwasm/pi/core/sandbox"
	"github.com/piwasm/pi/core/sandbox/confine"
)

// The test binary has this package's init, so started with
// confine.HelperArg it is the helper, confining from init as pi-sandbox
// does. The command it runs must be confined on the thread that executed
// it: no_new_privs and the seccomp filter show in its own status, and
// Landlock keeps it from writing outside the one writable directory.
func TestHelperConfinesFromInit(t *testing.T) {
	if p, _ := sandbox.Build(sandbox.Inputs{Cwd: t.TempDir(), Tmp: os.TempDir()}); p == nil || !p.Enforced() {
		t.Skip("the kernel cannot confine commands here")
	}
	dir, outside := t.TempDir(), t.TempDir()
	var spec bytes.Buffer
	if err := sandbox.PrintSpec([]string{dir}, &spec); err != nil {
		t.Fatal(err)
	}
	script := `grep -E '^(NoNewPrivs|Seccomp):' /proc/self/status
touch "$1/in" && echo wrote in
touch "$2/out" && echo wrote out
exit 0`
	cmd := exec.Command(os.Args[0], confine.HelperArg, strings.TrimSpace(spec.String()), "--", "bash", "-c", script, "bash", dir, outside)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, want := range []string{"NoNewPrivs:\t1", "Seccomp:\t2", "wrote in"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("no %q in the command's output:\n%s", want, out)
		}
	}
	if _, err := os.Stat(filepath.Join(outside, "out")); err == nil || strings.Contains(string(out), "wrote out") {
		t.Errorf("the command wrote outside its writable directory:\n%s", out)
	}
}

// The test binary is linked without the helper's entry point, so started
// with confine.SelfNSArg it is in pi's own namespaces, not in ones of its
// own: it must refuse, naming why, and run nothing; its probe fails too.
func TestHelperWithoutEntryRefusesSelfNS(t *testing.T) {
	dir := t.TempDir()
	var spec bytes.Buffer
	if err := sandbox.PrintSpec([]string{dir}, &spec); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(dir, "ran")
	cmd := exec.Command(os.Args[0], confine.SelfNSArg, strings.TrimSpace(spec.String()), "--", "touch", marker)
	out, err := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); err == nil || code != 126 || !strings.Contains(string(out), "without its entry point") {
		t.Errorf("exit %d (%v), want 126 and a refusal naming the entry point: %s", code, err, out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the command ran")
	}
	probe := exec.Command(os.Args[0], confine.SelfNSArg, confine.ProbeArg, strconv.Itoa(os.Getuid()), strconv.Itoa(os.Getgid()))
	if out, err := probe.CombinedOutput(); err == nil {
		t.Errorf("the probe succeeded without the entry point: %s", out)
	}
}
