//go:build unix

package mcp

import (
	"os/exec"
	"syscall"
)

// newProcessGroup gives the server a process group of its own, unless the
// sandbox already started it in a session of its own (which is a group
// too, and whose leader may not change group).
func newProcessGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	// A command the sandbox starts already leads a session of its own,
	// and with it a process group; setpgid would fail there.
	if !cmd.SysProcAttr.Setsid {
		cmd.SysProcAttr.Setpgid = true
	}
}

// killGroup sends SIGTERM (or SIGKILL) to the process group the server leads.
func killGroup(cmd *exec.Cmd, hard bool) {
	if cmd.Process == nil {
		return
	}
	sig := syscall.SIGTERM
	if hard {
		sig = syscall.SIGKILL
	}
	_ = syscall.Kill(-cmd.Process.Pid, sig)
}
