//go:build !unix

package host

import "github.com/tetratelabs/wazero/experimental"

// linearMemory is wazero's own allocation where pi does not map memory
// itself (see linearmem_unix.go).
var linearMemory experimental.MemoryAllocator = experimental.MemoryAllocatorFunc(func(_, _ uint64) experimental.LinearMemory {
	return &sliceMemory{}
})
