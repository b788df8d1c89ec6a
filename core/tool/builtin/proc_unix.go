//go:build !windows

package builtin

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup puts the command in a process group of its own so a
// timeout or an abort can kill it together with everything it started. It
// keeps any other attributes a sandboxing Shell has set; a Shell that
// starts a new session has given the command its own group already (and
// a session leader cannot change group).
func ownProcessGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	if cmd.SysProcAttr.Setsid {
		return
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.SysProcAttr.Pgid = 0
}

// killGroup sends SIGKILL to the command's whole process group.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}

// exitCode is the shell's status, with the shell convention 128+N for a
// death by signal N.
func exitCode(ee *exec.ExitError) int {
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ee.ExitCode()
}
