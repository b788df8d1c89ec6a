//go:build !linux

package sandbox

import "os/exec"

// setNamespaces: mount namespaces are Linux only.
func setNamespaces(*exec.Cmd) {}

// hostMountNS: no mount namespaces here.
func hostMountNS() string { return "" }
