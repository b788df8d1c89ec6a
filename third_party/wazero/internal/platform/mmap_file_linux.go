package platform

import (
	"os"

	"github.com/tetratelabs/wazero/internal/faultaround"

	"golang.org/x/sys/unix"
)

// MmapCodeFile maps size bytes of f from offset (a multiple of the page
// size) as read-only, executable code (PI-PATCH). The mapping is private:
// pages are read from the file when first executed, so code a module never
// runs costs no memory, and MunmapCodeSegment releases it. The file must
// hold the whole range.
func MmapCodeFile(f *os.File, offset int64, size int) ([]byte, error) {
	b, err := unix.Mmap(int(f.Fd()), offset, size, unix.PROT_READ|unix.PROT_EXEC, unix.MAP_PRIVATE)
	if err == nil {
		// A call runs scattered functions: map only their pages, not
		// the 64 KiB around each (internal/faultaround).
		faultaround.Off(b)
	}
	return b, err
}

// MmapCodeFileSupported reports whether MmapCodeFile can be used.
const MmapCodeFileSupported = true
