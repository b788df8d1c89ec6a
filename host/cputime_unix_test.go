//go:build unix

package host

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the test process used so far (all threads).
// On a shared machine it says what a call costs better than the wall
// clock, which also counts the time spent waiting for a core.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
