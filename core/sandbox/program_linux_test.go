package sandbox_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/piwasm/pi/core/sandbox"
)

// A program run through Program under a narrowed policy writes only the
// narrowed roots; and a helper started without the mount namespace its
// protected paths need refuses to run rather than mount in pi's own.
func TestProgramNarrowed(t *testing.T) {
	w := newWorld(t)
	if !requireEnforced(t, w) {
		return
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(w.base, "state")
	if err := os.MkdirAll(state, 0o755); err != nil {
		t.Fatal(err)
	}
	p := w.policy(t, sandbox.Flags{}).Narrow([]sandbox.Root{{Path: state, Reason: "state"}}, false)
	if p.Writable(filepath.Join(w.tree, "x")) || !p.Writable(filepath.Join(state, "x")) || p.Network {
		t.Fatalf("narrowed policy: %+v", p)
	}
	script := "touch " + filepath.Join(state, "ok") + "; touch " + filepath.Join(w.tree, "no") + " 2>/dev/null; exit 0"
	cmd, err := p.Program(exe, []string{"sh", "-c", script})
	if err != nil {
		t.Fatal(err)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if _, err := os.Stat(filepath.Join(state, "ok")); err != nil {
		t.Errorf("the state directory was not writable: %v", err)
	}
	if _, err := os.Stat(filepath.Join(w.tree, "no")); err == nil {
		t.Errorf("the working tree was writable")
	}

	// The guard: the same helper without its namespaces.
	cmd, err = p.Program(exe, []string{"true"})
	if err != nil {
		t.Fatal(err)
	}
	if cmd.SysProcAttr == nil || cmd.SysProcAttr.Cloneflags&syscall.CLONE_NEWNS == 0 {
		t.Skip("no mount namespace here: nothing to guard")
	}
	cmd.SysProcAttr.Cloneflags = 0
	cmd.SysProcAttr.UidMappings, cmd.SysProcAttr.GidMappings = nil, nil
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "not in a mount namespace of its own") {
		t.Errorf("a helper without its namespace ran: %v %s", err, out)
	}
}
