//go:build linux || freebsd || netbsd || openbsd || dragonfly

package main

import (
	"os"
	"syscall"
)

// peakRSSKiB is the child's peak resident set; these systems report it in KiB.
func peakRSSKiB(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return int64(ru.Maxrss)
	}
	return 0
}
