//go:build windows

package builtin

import (
	"os/exec"
	"strconv"
	"syscall"
)

// ownProcessGroup starts the command in a new process group.
func ownProcessGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= syscall.CREATE_NEW_PROCESS_GROUP
}

// killGroup ends the command and its descendants with taskkill /T.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	_ = exec.Command("taskkill", "/F", "/T", "/PID", strconv.Itoa(cmd.Process.Pid)).Run()
	_ = cmd.Process.Kill()
}

func exitCode(ee *exec.ExitError) int { return ee.ExitCode() }
