package proccpu

import (
	"runtime"
	"testing"
	"time"
)

// Burning CPU shows in Used where the kernel reports it.
func TestUsedGrows(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("not measured here")
	}
	before := Used()
	x := 0
	for start := time.Now(); time.Since(start) < 50*time.Millisecond; {
		x++
	}
	if after := Used(); after <= before {
		t.Errorf("Used went from %v to %v over 50 ms of work (%d rounds)", before, after, x)
	}
}
