//go:build !linux

package sandbox

import "os/exec"

// setNamespaces: mount namespaces are Linux only.
func setNamespaces(*exec.Cmd, bool) {}

// hostMountNS: no mount namespaces here.
func hostMountNS() string { return "" }

// hostNetNS: no network namespaces here.
func hostNetNS() string { return "" }
