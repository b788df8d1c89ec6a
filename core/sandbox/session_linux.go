package sandbox

import (
	"os/exec"
	"syscall"
)

// detach starts the helper in a new session, without a controlling
// terminal (so /dev/tty leads nowhere and the terminal's signals and input
// stay pi's), and has the kernel kill it when pi dies. The bash tool kills
// the session's process group, whose id is the helper's pid, as before.
func detach(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setsid = true
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
