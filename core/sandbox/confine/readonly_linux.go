package confine

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// Landlock has no right for changing a file's metadata: a confined command
// could chmod, chown, touch or set extended attributes on any file its
// user owns (a private key made 0644, a script made executable), and
// seccomp cannot tell where a path points. In the helper's own mount
// namespace, every mount outside the writable roots is made read-only
// instead, so the kernel refuses all of these there with "Read-only file
// system" (EROFS), through a path or a descriptor alike, and the writable
// roots are put back writable on top. Device files stay writable (the
// kernel does not apply a mount's read-only flag to them).

// readOnlyOutside makes everything but the writable roots read-only. It
// runs in the helper's mount namespace, before the protected paths are
// bound read-only inside the roots.
func readOnlyOutside(roots []string) error {
	// Detached copies of each writable root's mounts, taken while they are
	// still writable.
	var clones []int
	var at []string
	defer func() {
		for _, fd := range clones {
			unix.Close(fd)
		}
	}()
	for _, r := range roots {
		if _, err := os.Stat(r); err != nil {
			continue // Landlock skips it too
		}
		fd, err := unix.OpenTree(unix.AT_FDCWD, r, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE)
		if err != nil {
			return fmt.Errorf("copy the mount of %s: %w", r, err)
		}
		clones, at = append(clones, fd), append(at, r)
	}
	if err := unix.MountSetattr(unix.AT_FDCWD, "/", unix.AT_RECURSIVE, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}); err != nil {
		return fmt.Errorf("make the file system read-only: %w", err)
	}
	for i, fd := range clones {
		if err := unix.MoveMount(fd, "", unix.AT_FDCWD, at[i], unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
			return fmt.Errorf("put %s back writable: %w", at[i], err)
		}
	}
	// The working directory still points into the read-only mount below;
	// enter it again through the writable one now on top.
	if wd, err := os.Getwd(); err == nil {
		if err := os.Chdir(wd); err != nil {
			return fmt.Errorf("re-enter %s: %w", wd, err)
		}
	}
	return nil
}
