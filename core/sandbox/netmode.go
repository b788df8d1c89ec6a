package sandbox

import "github.com/piwasm/pi/core/sandbox/confine"

// netMode is what the filter lets commands do with internet sockets.
type netMode int

const (
	netOff       netMode = iota // none
	netOn                       // any
	netProxyOnly                // TCP only (Landlock then holds it to the proxy's port)
)

// netModeOf is the network mode of a helper's spec, the one its Landlock
// rules enforce (see confine's restrict): the seccomp filter must match it.
func netModeOf(sp confine.Spec) netMode {
	switch {
	case sp.Network:
		return netOn
	case sp.ProxyPort != 0:
		return netProxyOnly
	}
	return netOff
}
