//go:build unix

package proccpu

import (
	"syscall"
	"time"
)

// Used is the user and system time the process has used so far, over all
// its threads (0 if the kernel does not say).
func Used() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
