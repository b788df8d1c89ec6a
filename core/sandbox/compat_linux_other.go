//go:build linux && !amd64

package sandbox

import "golang.org/x/net/bpf"

// compatPrefix is empty where pi knows no second system-call ABI to close.
func compatPrefix() []bpf.Instruction { return nil }
