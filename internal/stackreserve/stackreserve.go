package stackreserve

// Each function's frame is a little above half its target: the runtime
// doubles a stack until the frame fits, so a fresh 2 KiB stack reaches
// the target in one copy. The frame is gone on return; the stack stays.

// To16K grows the calling goroutine's stack to at least 16 KiB.
//
//go:noinline
func To16K() byte {
	var pad [10 << 10]byte
	return keep(pad[:])
}

// To64K grows the calling goroutine's stack to at least 64 KiB.
//
//go:noinline
func To64K() byte {
	var pad [40 << 10]byte
	return keep(pad[:])
}

// keep reads the frame so that the compiler keeps it.
//
//go:noinline
func keep(b []byte) byte { return b[len(b)-1] }

// The main goroutine: see the package doc.
func init() { To16K() }
