//go:build linux

package main

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/piwasm/pi/core/sandbox"
	"github.com/piwasm/pi/internal/hostile"
	"github.com/piwasm/pi/internal/scripted"
	"golang.org/x/sys/unix"
)

// TestConfinedCommandCannotTypeIntoTheTerminal is the attack of issue 19:
// pi runs in the user's terminal and the model has bash run a program that
// pushes a line into the terminal's input with TIOCSTI (through /dev/tty,
// the terminal's device by name, and descriptors 0 to 2), which the user's
// shell would run after pi exits. Nothing may reach the terminal's input.
func TestConfinedCommandCannotTypeIntoTheTerminal(t *testing.T) {
	if p, _ := sandbox.Build(sandbox.Inputs{Cwd: t.TempDir(), Tmp: os.TempDir()}); p == nil || !p.Enforced() {
		t.Skip("the kernel cannot confine commands here")
	}
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	go io.Copy(io.Discard, ptmx)

	c := newCLI(t)
	script := `"` + os.Args[0] + `" ` + hostile.InjectTTY + " " + tty.Name()
	args, _ := json.Marshal(map[string]any{"command": script})
	s := scriptedModel(t, c, "openai-completions", []scripted.Reply{
		{Calls: []scripted.Call{{Name: "bash", Args: args}}},
		{Text: "done"},
	})
	cmd := exec.Command(os.Args[0], "-p", "--model", "mock/mock-1", "type into the terminal")
	cmd.Dir = c.home
	cmd.Env = append(os.Environ(), "PI_TEST_AS_PI=1", "PI_CODING_AGENT_DIR="+c.agentDir, "HOME="+c.home)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	// The terminal is pi's controlling terminal, as in a user's shell.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("pi: %v", err)
		}
	case <-time.After(90 * time.Second):
		cmd.Process.Kill()
		t.Fatal("pi did not finish")
	}
	reqs := s.Requests()
	if len(reqs) < 2 {
		t.Fatalf("the model was asked %d times; the tool call never came back", len(reqs))
	}
	result := string(reqs[1])
	if !strings.Contains(result, "fd 0:") {
		t.Fatalf("the hostile program did not report; tool result in %s", result)
	}
	if strings.Contains(result, ": "+hostile.Typed) {
		t.Errorf("a confined command typed into the terminal: %s", result)
	}
	if n, err := unix.IoctlGetInt(int(tty.Fd()), unix.TIOCINQ); err != nil || n != 0 {
		t.Errorf("the terminal's input queue holds %d bytes after pi exited (%v)", n, err)
	}
}
