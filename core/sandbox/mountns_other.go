//go:build !linux

package sandbox

import (
	"errors"
	"os/exec"
)

// setNamespaces: mount namespaces are Linux only.
func setNamespaces(*exec.Cmd, bool) {}

// selfNSWorks: no helper creates namespaces here.
func selfNSWorks(string) bool { return false }

// hostMountNS: no mount namespaces here.
func hostMountNS() string { return "" }

// hostNetNS: no network namespaces here.
func hostNetNS() string { return "" }

// startHandOver: no network namespaces here (commands are not confined).
func (x *netProxy) startHandOver() (string, string, error) {
	return "", "", errors.New("network namespaces are Linux only")
}
