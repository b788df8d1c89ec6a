package main

import (
	"os"
	"syscall"
)

// peakRSSKiB is the child's peak resident set; macOS reports it in bytes.
func peakRSSKiB(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss / 1024
	}
	return 0
}
