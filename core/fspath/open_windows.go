package fspath

import "os"

// dirFlag: Windows opens directories with plain O_RDONLY.
const dirFlag = 0

// Open opens path with flag and perm. Windows has no O_NOFOLLOW: the path
// is opened as os.OpenFile would (see docs/sandbox.md on what the file
// tools guarantee where).
func Open(path string, flag int, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(path, flag, perm)
}

// MkdirAll is os.MkdirAll on Windows.
func MkdirAll(path string, perm os.FileMode) error { return os.MkdirAll(path, perm) }
