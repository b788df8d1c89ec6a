//go:build !linux

package platform

import (
	"errors"
	"os"
)

// MmapCodeFile is available on Linux only (PI-PATCH): elsewhere the cached
// code is read into a code segment. macOS on arm64 runs no unsigned code
// mapped from a file.
func MmapCodeFile(f *os.File, offset int64, size int) ([]byte, error) {
	return nil, errors.New("mapping code from a file is not supported on this platform")
}

// MmapCodeFileSupported reports whether MmapCodeFile can be used.
const MmapCodeFileSupported = false
