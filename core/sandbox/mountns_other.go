//go:build !linux

package sandbox

import (
	"errors"
	"os/exec"
)

// setNamespaces: mount namespaces are Linux only.
func setNamespaces(*exec.Cmd, bool) {}

// hostMountNS: no mount namespaces here.
func hostMountNS() string { return "" }

// hostNetNS: no network namespaces here.
func hostNetNS() string { return "" }

// attach: no network namespaces here (commands are not confined).
func (x *netProxy) attach(*exec.Cmd) error {
	return errors.New("sandbox: network namespaces are Linux only")
}
