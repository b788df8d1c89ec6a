//go:build linux && !amd64

package sandbox

import "github.com/elastic/go-seccomp-bpf/arch"

// compatArch is nil where pi knows no second system-call ABI to close.
func compatArch() *arch.Info { return nil }
