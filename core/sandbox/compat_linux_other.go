//go:build linux && !amd64

package sandbox

// compatArch is nil where pi knows no second system-call ABI to close.
func compatArch() *sysTable { return nil }
