//go:build unix

package fspath

import (
	"errors"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

const dirFlag = unix.O_DIRECTORY

// Open opens path, absolute and already resolved, with flag and perm (as
// os.OpenFile takes them), refusing a symbolic link at any component with
// an error wrapping [ErrChanged]. O_CLOEXEC and O_NOCTTY are always added.
func Open(path string, flag int, perm os.FileMode) (*os.File, error) {
	fd, err := OpenFd(path, flag, perm)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), path), nil
}

// OpenFd is Open returning the bare descriptor, for a caller that must
// read it without Go's poller (which would wait on a non-blocking
// descriptor that is not ready, such as /proc/kmsg).
func OpenFd(path string, flag int, perm os.FileMode) (int, error) {
	if !filepath.IsAbs(path) {
		return -1, pathErr("open", path, errors.New("not an absolute path"))
	}
	flag |= unix.O_CLOEXEC | unix.O_NOCTTY
	fd, err := openat2(path, flag, uint32(perm.Perm()))
	if errors.Is(err, errNoOpenat2) {
		fd, err = walkOpen(path, flag, uint32(perm.Perm()))
	}
	if err != nil {
		return -1, pathErr("open", path, err)
	}
	return fd, nil
}

// MkdirAll creates path and its missing parents, refusing a symbolic link
// at any component.
func MkdirAll(path string, perm os.FileMode) error {
	if !filepath.IsAbs(path) {
		return pathErr("mkdir", path, errors.New("not an absolute path"))
	}
	dfd, err := unix.Open("/", pathFlag|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return pathErr("mkdir", path, err)
	}
	for _, c := range components(path) {
		nfd, err := unix.Openat(dfd, c, pathFlag|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if errors.Is(err, unix.ENOENT) {
			if err = unix.Mkdirat(dfd, c, uint32(perm.Perm())); err == nil || errors.Is(err, unix.EEXIST) {
				nfd, err = unix.Openat(dfd, c, pathFlag|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			}
		}
		if err != nil {
			err = explain(dfd, c, err)
			unix.Close(dfd)
			return pathErr("mkdir", path, err)
		}
		unix.Close(dfd)
		dfd = nfd
	}
	unix.Close(dfd)
	return nil
}

// walkOpen opens path one component at a time with O_NOFOLLOW, for
// kernels without openat2 (Linux before 5.6, other Unix systems).
func walkOpen(path string, flag int, perm uint32) (int, error) {
	names := components(path)
	if len(names) == 0 {
		return unix.Open("/", flag, perm)
	}
	dfd, err := unix.Open("/", pathFlag|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	for _, c := range names[:len(names)-1] {
		nfd, err := unix.Openat(dfd, c, pathFlag|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			err = explain(dfd, c, err)
			unix.Close(dfd)
			return -1, err
		}
		unix.Close(dfd)
		dfd = nfd
	}
	last := names[len(names)-1]
	fd, err := unix.Openat(dfd, last, flag|unix.O_NOFOLLOW, perm)
	if err != nil {
		err = explain(dfd, last, err)
	}
	unix.Close(dfd)
	return fd, err
}

// explain turns the errors a symbolic link at name produces under
// O_NOFOLLOW (ELOOP, or ENOTDIR where a directory was wanted) into
// ErrChanged.
func explain(dfd int, name string, err error) error {
	if errors.Is(err, unix.ELOOP) {
		return ErrChanged
	}
	if errors.Is(err, unix.ENOTDIR) {
		var st unix.Stat_t
		if unix.Fstatat(dfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
			return ErrChanged
		}
	}
	return err
}
