package fspath

import (
	"errors"

	"golang.org/x/sys/unix"
)

// pathFlag opens the intermediate directories of a walk without needing
// read permission on them.
const pathFlag = unix.O_PATH

var errNoOpenat2 = errors.New("openat2 is not available")

// openat2 opens path in one system call with every symbolic link refused.
// It reports errNoOpenat2 where the kernel (or a seccomp filter) lacks it.
func openat2(path string, flag int, perm uint32) (int, error) {
	how := unix.OpenHow{Flags: uint64(flag), Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS}
	if flag&(unix.O_CREAT|unix.O_TMPFILE) != 0 {
		how.Mode = uint64(perm)
	}
	for {
		fd, err := unix.Openat2(unix.AT_FDCWD, path, &how)
		switch {
		case err == nil:
			return fd, nil
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EPERM):
			// Missing, or refused by a container's seccomp profile: the
			// walk gives the same guarantee and the real error.
			return -1, errNoOpenat2
		case errors.Is(err, unix.ELOOP), errors.Is(err, unix.EXDEV):
			return -1, ErrChanged
		}
		return -1, err
	}
}
