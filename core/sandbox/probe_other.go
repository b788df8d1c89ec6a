//go:build !linux

package sandbox

import "runtime"

func probe() Enforcement {
	return Enforcement{OS: runtime.GOOS, Reason: "command confinement is implemented on Linux only (Landlock and seccomp); on " + runtime.GOOS + " pi cannot confine bash"}
}

func probeKernel() Enforcement { return probe() }

// namespacesWork: mount namespaces are Linux only.
func namespacesWork() bool { return false }
