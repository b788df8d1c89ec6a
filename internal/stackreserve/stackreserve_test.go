package stackreserve

import (
	"testing"
	"unsafe"
)

// deep uses about n KiB of stack.
//
//go:noinline
func deep(n int) byte {
	var pad [1 << 10]byte
	if n <= 0 {
		return keep(pad[:])
	}
	return deep(n-1) + keep(pad[:])
}

// moved reports whether a fresh goroutine's stack is copied while it
// calls down kib KiB, after reserve (if any) ran first. A stack is copied
// exactly when it grows, and a copy moves every local.
func moved(reserve func() byte, kib int) bool {
	done := make(chan bool)
	go func() {
		var mark byte
		if reserve != nil {
			reserve()
		}
		before := uintptr(unsafe.Pointer(&mark))
		deep(kib)
		done <- uintptr(unsafe.Pointer(&mark)) != before
	}()
	return <-done
}

func TestReserveAvoidsLaterGrowth(t *testing.T) {
	for _, c := range []struct {
		name    string
		reserve func() byte
		kib     int
	}{
		{"To16K", To16K, 10},
		{"To64K", To64K, 44},
	} {
		t.Run(c.name, func(t *testing.T) {
			// The control: without the reservation the same calls grow
			// (and so copy) the stack, else this test would prove nothing.
			if !moved(nil, c.kib) {
				t.Fatalf("calls %d KiB deep did not grow a fresh goroutine's stack", c.kib)
			}
			if moved(c.reserve, c.kib) {
				t.Errorf("after %s, calls %d KiB deep still grew the stack", c.name, c.kib)
			}
		})
	}
}
