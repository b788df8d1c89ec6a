//go:build unix

package host

import (
	"github.com/tetratelabs/wazero/experimental"
	"golang.org/x/sys/unix"
)

// linearMemory gives each guest's linear memory an address range of its
// own, reserved at its maximum (the extension's memory limit) but backed
// only by the pages the guest touches. wazero's default keeps the memory
// in a Go slice of the module's initial size and copies it to a new slice
// on every memory.grow, so a Go guest, which grows its memory several
// times while it starts, held each old copy until the host's next garbage
// collection, and every byte of it counted in the host's heap goal. Here
// growing extends the slice in place; closing the instance unmaps it.
var linearMemory experimental.MemoryAllocator = experimental.MemoryAllocatorFunc(func(_, max uint64) experimental.LinearMemory {
	if max == 0 || max > 1<<32 {
		return &sliceMemory{} // not reached with pi's limits
	}
	b, err := unix.Mmap(-1, 0, int(max), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON|mapNoReserve)
	if err != nil {
		return &sliceMemory{}
	}
	return &mappedMemory{b: b}
})

// mappedMemory is a linear memory in a reserved mapping.
type mappedMemory struct{ b []byte }

func (m *mappedMemory) Reallocate(size uint64) []byte {
	if m.b == nil || size > uint64(len(m.b)) {
		return nil // beyond the reservation (the limit): memory.grow fails
	}
	return m.b[:size:size]
}

func (m *mappedMemory) Free() {
	if m.b != nil {
		unix.Munmap(m.b)
		m.b = nil
	}
}
