//go:build !unix

package mcp

import "os/exec"

func newProcessGroup(*exec.Cmd) {}

// killGroup ends the server process (no process groups here).
func killGroup(cmd *exec.Cmd, _ bool) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
