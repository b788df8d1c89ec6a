//go:build !unix

package host

import "github.com/tetratelabs/wazero/experimental"

// linearMemory is wazero's own allocation where pi does not map memory
// itself (see linearmem_unix.go).
var linearMemory experimental.MemoryAllocator = experimental.MemoryAllocatorFunc(func(_, _ uint64) experimental.LinearMemory {
	return &sliceMemory{}
})

// mapSnapshots says that a snapshot's image is read, not mapped.
const mapSnapshots = false

// snapshotMemory returns an allocator whose memory starts as the
// snapshot's image (read by loadSnapshot).
func snapshotMemory(s *snapshot, _ *error) experimental.MemoryAllocator {
	return experimental.MemoryAllocatorFunc(func(_, _ uint64) experimental.LinearMemory {
		return &sliceMemory{b: s.image}
	})
}
