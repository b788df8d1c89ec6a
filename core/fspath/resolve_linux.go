package fspath

import (
	"errors"

	"golang.org/x/sys/unix"
)

// noLinks reports whether p, absolute and clean, names something that
// exists through no symbolic link at all: then p is its own resolution.
// One openat2 with links refused answers that for the whole path where
// EvalSymlinks looks up each component in turn (a read or an edit resolves
// a path of five to ten components). O_PATH opens nothing for reading or
// writing, needs no permission on the file itself and has no effect on a
// device or a FIFO. Anything else (a link, a missing part, no openat2)
// reports false, and the caller resolves the path component by component.
func noLinks(p string) bool {
	how := unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS}
	for {
		fd, err := unix.Openat2(unix.AT_FDCWD, p, &how)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return false
		}
		unix.Close(fd)
		return true
	}
}
