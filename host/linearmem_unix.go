//go:build unix

package host

import (
	"errors"
	"fmt"
	"os"
	"unsafe"

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

// mapSnapshots says that a snapshot's image is mapped, not read.
const mapSnapshots = true

// snapshotMemory returns an allocator that reserves a guest's memory as
// linearMemory does and maps the snapshot's image copy-on-write over its
// start: the guest's memory holds the image from the first instruction,
// pages it never touches are never read, and the pages it only reads stay
// shared with the page cache. *failed is set when the image could not be
// mapped (the memory then holds zeros, and the caller must not use it).
func snapshotMemory(s *snapshot, failed *error) experimental.MemoryAllocator {
	return experimental.MemoryAllocatorFunc(func(min, max uint64) experimental.LinearMemory {
		m := linearMemory.Allocate(min, max)
		mm, ok := m.(*mappedMemory)
		if !ok || uint64(len(mm.b)) < s.memBytes {
			*failed = errors.New("no reservation to map the image into")
			return m
		}
		if s.memBytes == 0 {
			return m
		}
		f, err := os.Open(s.path)
		if err != nil {
			*failed = err
			return m
		}
		defer f.Close()
		_, _, errno := unix.Syscall6(unix.SYS_MMAP, uintptr(unsafe.Pointer(&mm.b[0])), uintptr(s.memBytes),
			unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_FIXED, f.Fd(), uintptr(s.imageOff))
		if errno != 0 {
			*failed = fmt.Errorf("mapping the image: %w", errno)
			return m
		}
		// A call reads scattered pages of the image (the guest's heap):
		// map those, not the cached 64 KiB around each.
		experimental.MapPagesOnTouch(mm.b[:s.memBytes])
		return m
	})
}
