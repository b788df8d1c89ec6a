package confine

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// The protected paths and the read deny list are enforced for commands in
// a mount namespace of their own, which pi starts the helper in (see
// package sandbox, mountns_linux.go): the helper binds each directory
// between a writable root and a protected path over itself (so none can be
// renamed away: see pinned), bind-mounts each protected path over itself
// read-only and covers each denied path (an
// empty read-only tmpfs over a directory, /dev/null over a file), then
// confines itself with Landlock, which also forbids the command to
// unmount any of it. See RATIONALE.md.

// dropCaps clears the ambient capabilities the helper was started with
// and every capability it holds, so the command it executes (not root in
// its namespace) starts with none.
func dropCaps() error {
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("clear ambient capabilities: %w", err)
	}
	if os.Getuid() == 0 {
		return nil // root keeps its capabilities in its namespace, as before
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("drop capabilities: %w", err)
	}
	return nil
}

// applyMounts makes s.ReadOnly read-only and hides s.Hide, in the helper's
// own mount namespace, before Landlock. Paths that do not exist are
// skipped (see docs/sandbox.md for what that leaves open).
func applyMounts(s Spec) error {
	if !s.Namespace {
		return nil
	}
	// Nothing done here may reach pi's own namespace: a helper started
	// without one of its own (a caller that forgot setNamespaces, with pi
	// running as root) refuses rather than mount over pi's files.
	if self, err := os.Readlink("/proc/self/ns/mnt"); err != nil || s.HostMountNS == "" || self == s.HostMountNS {
		return errors.New("the helper is not in a mount namespace of its own; not mounting anything")
	}
	if err := unix.Mount("none", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make mounts private: %w", err)
	}
	if err := readOnlyOutside(s.Write); err != nil {
		return err
	}
	// Before the read-only mounts, which each pin then carries along.
	for _, d := range pinned(s.Write, s.ReadOnly) {
		if err := pin(d); err != nil {
			return err
		}
	}
	for _, p := range s.ReadOnly {
		if err := bindReadOnly(p, p); err != nil {
			return err
		}
	}
	for _, p := range s.Hide {
		fi, err := os.Stat(p)
		if err != nil {
			continue
		}
		if fi.IsDir() {
			err = unix.Mount("tmpfs", p, "tmpfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "size=4k,mode=000")
		} else {
			err = bindReadOnly("/dev/null", p)
		}
		if err != nil {
			return fmt.Errorf("hide %s: %w", p, err)
		}
	}
	return nil
}

// pin binds the directory d over itself, writable as it was, so that the
// command cannot rename or remove it (see [pinned]). A missing path, or one
// that is not a directory (a symbolic link is never followed here), is
// left alone: the protected paths below it are then missing too.
func pin(d string) error {
	fi, err := os.Lstat(d)
	if err != nil || !fi.IsDir() {
		return nil
	}
	if err := unix.Mount(d, d, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		if errors.Is(err, unix.ENOENT) {
			return nil // gone in between
		}
		return fmt.Errorf("pin %s: %w", d, err)
	}
	return nil
}

// bindReadOnly bind-mounts src over dst and makes that mount read-only,
// keeping the flags the kernel locks in a user namespace (nosuid, nodev,
// noexec, atime), which a remount may not clear.
func bindReadOnly(src, dst string) error {
	if _, err := os.Stat(dst); err != nil {
		return nil
	}
	if err := unix.Mount(src, dst, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		if errors.Is(err, unix.ENOENT) {
			return nil // gone in between
		}
		return fmt.Errorf("protect %s: %w", dst, err)
	}
	var st unix.Statfs_t
	if err := unix.Statfs(dst, &st); err != nil {
		return fmt.Errorf("protect %s: %w", dst, err)
	}
	flags := uintptr(unix.MS_BIND | unix.MS_REMOUNT | unix.MS_RDONLY)
	for _, f := range []struct{ st, ms uintptr }{
		{unix.ST_NOSUID, unix.MS_NOSUID}, {unix.ST_NODEV, unix.MS_NODEV}, {unix.ST_NOEXEC, unix.MS_NOEXEC},
		{unix.ST_NOATIME, unix.MS_NOATIME}, {unix.ST_NODIRATIME, unix.MS_NODIRATIME}, {unix.ST_RELATIME, unix.MS_RELATIME},
	} {
		if uintptr(st.Flags)&f.st != 0 {
			flags |= f.ms
		}
	}
	if err := unix.Mount("none", dst, "", flags, ""); err != nil {
		return fmt.Errorf("protect %s: %w", dst, err)
	}
	return nil
}
