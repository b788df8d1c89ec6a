package sandbox_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/creack/pty"
	"github.com/piwasm/pi/core/sandbox"
	"github.com/piwasm/pi/internal/hostile"
	"golang.org/x/sys/unix"
)

// TestNoWayToTheTerminal runs a confined command whose standard input is a
// terminal (the worst case: the bash tool gives commands /dev/null) and
// which also opens the terminal by name; typing into it must fail every
// way, and the terminal's input queue must stay empty.
func TestNoWayToTheTerminal(t *testing.T) {
	w := newWorld(t)
	if !requireEnforced(t, w) {
		return
	}
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"workspace", "read-only"} {
		for _, network := range []string{"on", "off"} {
			p := w.policy(t, sandbox.Flags{Mode: mode, Network: network})
			script := fmt.Sprintf("%q %s %q", exe, hostile.InjectTTY, tty.Name())
			cmd, err := sandbox.Shell{Policy: p, Exe: exe}.Command(context.Background(), script, w.tree, nil)
			if err != nil {
				t.Fatal(err)
			}
			cmd.Stdin = tty
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%s/%s: %v: %s", mode, network, err, out)
			}
			if strings.Contains(string(out), hostile.Typed) || !strings.Contains(string(out), "fd 0:") {
				t.Errorf("%s/network %s: a confined command typed into the terminal:\n%s", mode, network, out)
			}
			if n, err := unix.IoctlGetInt(int(tty.Fd()), unix.TIOCINQ); err != nil || n != 0 {
				t.Errorf("%s/network %s: the terminal's input queue holds %d bytes (%v)", mode, network, n, err)
			}
		}
	}
	// Control: unconfined, the same program does type (as root, or where
	// the terminal is its own); otherwise the checks above prove little.
	off := w.policy(t, sandbox.Flags{Mode: "off"})
	cmd, _ := sandbox.Shell{Policy: off, Exe: exe}.Command(context.Background(), fmt.Sprintf("%q %s %q", exe, hostile.InjectTTY, tty.Name()), w.tree, nil)
	cmd.Stdin = tty
	out, _ := cmd.Output()
	if strings.Contains(string(out), hostile.Typed) {
		if n, _ := unix.IoctlGetInt(int(tty.Fd()), unix.TIOCINQ); n == 0 {
			t.Errorf("control: typed, but the input queue looks empty, so the checks above prove nothing")
		}
	}
	t.Logf("unconfined control:\n%s", out)
}
