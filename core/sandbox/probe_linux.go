package sandbox

import (
	"fmt"

	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"

	"github.com/piwasm/pi/core/sandbox/confine"
)

func probe() Enforcement {
	e := probeKernel()
	e.MountNS = namespacesWork()
	return e
}

// probeKernel is probe without MountNS, which costs a fork of pi (see
// [Policy.mountNS]).
func probeKernel() Enforcement {
	e := Enforcement{OS: "linux", Seccomp: confine.SeccompSupported()}
	v, err := llsys.LandlockGetABIVersion()
	if err == nil && v > 0 {
		e.LandlockABI = v
	}
	switch {
	case e.LandlockABI == 0 && !e.Seccomp:
		e.Reason = fmt.Sprintf("this kernel has neither Landlock nor seccomp (%v)", err)
	case e.LandlockABI == 0:
		e.Reason = fmt.Sprintf("this kernel does not offer Landlock (%v); it needs Linux 5.13 or later with Landlock enabled in the lsm= boot list", err)
	case !e.Seccomp:
		e.Reason = "this kernel does not offer seccomp filters, which the sandbox needs to keep commands from the terminal and the network"
	}
	return e
}
