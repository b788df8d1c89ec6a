//go:build unix

package host

import (
	"errors"
	"io"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// readOffHeap reads the regular file path, expected to be size bytes,
// into an anonymous mapping outside Go's heap, and returns it with the
// function that unmaps it. ok is false when the file could not be read so
// (it is not a regular file of size bytes, or mapping failed): the caller
// then reads it the ordinary way, which reports the problem.
//
// Why: a module is megabytes, needed only while wazero decodes it. Read
// into the heap, its pages stayed with the Go runtime after it was freed
// (the heap's free pages are returned to the system minutes later, if at
// all in a short run), so every module a run loaded counted in the
// process's peak resident set at its end, when the guests run; unmapped,
// they are returned at once.
func readOffHeap(path string, size int) (b []byte, release func(), ok bool) {
	if size <= 0 {
		return nil, nil, false
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() != int64(size) {
		return nil, nil, false
	}
	m, err := unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return nil, nil, false
	}
	release = func() { unix.Munmap(m) }
	// Exactly size bytes, and then the end: a file that grew since the
	// stat is left to the ordinary read, which sees all of it.
	var one [1]byte
	if _, err := io.ReadFull(f, m); err != nil {
		release()
		return nil, nil, false
	}
	if n, err := f.Read(one[:]); n != 0 || !errors.Is(err, io.EOF) {
		release()
		return nil, nil, false
	}
	return m, release, true
}
