//go:build unix

package host

import (
	"testing"
	"unsafe"
)

// A guest's linear memory grows in place inside its reservation, reads as
// zeros where it grew, and cannot grow past the reservation (the
// extension's memory limit).
func TestLinearMemoryGrowsInPlace(t *testing.T) {
	const max = 4 << 20
	m := linearMemory.Allocate(64<<10, max)
	defer m.Free()
	a := m.Reallocate(64 << 10)
	if len(a) != 64<<10 {
		t.Fatalf("initial length %d", len(a))
	}
	a[100] = 7
	b := m.Reallocate(1 << 20)
	if len(b) != 1<<20 || unsafe.SliceData(a) != unsafe.SliceData(b) {
		t.Fatalf("grew to %d bytes at another address (copied)", len(b))
	}
	if b[100] != 7 || b[1<<20-1] != 0 || b[64<<10] != 0 {
		t.Fatal("contents not kept, or new pages not zero")
	}
	if c := m.Reallocate(max + 64<<10); c != nil {
		t.Fatalf("grew past the reservation to %d bytes", len(c))
	}
	if c := m.Reallocate(max); len(c) != max {
		t.Fatalf("could not grow to the limit: %d", len(c))
	}
}
