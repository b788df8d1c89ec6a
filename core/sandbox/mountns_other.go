//go:build !linux

package sandbox

import "os/exec"

// setNamespaces: mount namespaces are Linux only.
func setNamespaces(*exec.Cmd) {}
