package sandbox

// Enforcement says what the running system can enforce.
type Enforcement struct {
	OS string `json:"os"`
	// LandlockABI is the kernel's Landlock ABI version, 0 without Landlock.
	LandlockABI int `json:"landlockABI"`
	// Seccomp reports whether seccomp filters can be installed.
	Seccomp bool `json:"seccomp"`
	// MountNS reports whether commands can be started in a user and mount
	// namespace of their own, where the protected paths and the read deny
	// list are enforced for them.
	MountNS bool `json:"mountNamespace"`
	// Reason explains what is missing; empty when everything is there.
	Reason string `json:"reason,omitempty"`
}

// Landlock reports whether Landlock is available.
func (e Enforcement) Landlock() bool { return e.LandlockABI > 0 }

// Probe asks the kernel what it can enforce. It is cheap (two system
// calls on Linux) but callers build a [Policy] once and keep it.
func Probe() Enforcement { return probe() }
