//go:build !windows

package builtin

import (
	"errors"
	"io"
	"io/fs"
	"syscall"

	"github.com/piwasm/pi/core/fspath"
)

// nonblock keeps opening a FIFO from waiting for its other end.
const nonblock = syscall.O_NONBLOCK

// errWouldBlock ends a read of a file that has no more data yet but is
// not at its end (/proc/kmsg and the like): the tools read files, not
// streams.
var errWouldBlock = errors.New("the file has no more data yet (it is a stream, not a regular file); the file tools read regular files only")

// openRegularFile opens p (absolute, resolved) for reading, non-blocking,
// and checks on the descriptor that it is a regular file. Reads go
// straight to the system call: a descriptor that would block ends the
// read with errWouldBlock instead of parking in Go's poller.
func openRegularFile(p string) (io.ReadCloser, error) {
	fd, err := fspath.OpenFd(p, syscall.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		syscall.Close(fd)
		if err == nil {
			err = errNotRegular
		}
		return nil, &fs.PathError{Op: "open", Path: p, Err: err}
	}
	return &rawFile{fd: fd, path: p}, nil
}

type rawFile struct {
	fd   int
	path string
}

func (f *rawFile) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	for {
		n, err := syscall.Read(f.fd, b)
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
			return 0, &fs.PathError{Op: "read", Path: f.path, Err: errWouldBlock}
		case err != nil:
			return 0, &fs.PathError{Op: "read", Path: f.path, Err: err}
		case n == 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

func (f *rawFile) Close() error { return syscall.Close(f.fd) }
