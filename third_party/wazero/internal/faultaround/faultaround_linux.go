//go:build linux && (amd64 || arm64)

package faultaround

import (
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// PI-PATCH: mapping a file page by page.
//
// When a process first touches a page of a file mapping whose file is in
// the page cache, Linux maps not just that page but every cached page of
// the aligned 64 KiB window around it ("fault-around", fault_around_bytes),
// and each of them counts in the process's resident set. For a guest's
// native code, of which a call runs a few hundred scattered functions, that
// made about four times as much code resident as was run (some 4 MiB per
// Go guest instead of 1). The kernel skips fault-around for a range
// registered with a userfaultfd in write-protect mode (mm/memory.c,
// uffd_disable_fault_around). With UFFD_FEATURE_WP_ASYNC (Linux 6.7) any
// mapping can be registered so, and the kernel resolves write-protect
// faults itself (none happen here: nothing is write-protected), so the
// registration changes nothing but fault-around. The userfaultfd is made
// with UFFD_USER_MODE_ONLY, which unprivileged processes may use.

const (
	uffdUserModeOnly     = 1
	uffdAPI              = 0xAA
	uffdFeatureWPAsync   = 1 << 15
	uffdioAPI            = 0xC018AA3F // _IOWR(0xAA, 0x3F, struct uffdio_api)
	uffdioRegister       = 0xC020AA00 // _IOWR(0xAA, 0x00, struct uffdio_register)
	uffdioRegisterModeWP = 2
)

// uffd is the process's userfaultfd, made on first use, or -1 when the
// kernel (or a seccomp policy) does not offer one with WP_ASYNC. It is
// never closed: closing it would unregister every range.
var uffd = sync.OnceValue(func() int {
	fd, _, errno := unix.Syscall(unix.SYS_USERFAULTFD, uintptr(unix.O_CLOEXEC|unix.O_NONBLOCK|uffdUserModeOnly), 0, 0)
	if errno != 0 {
		return -1
	}
	api := struct{ api, features, ioctls uint64 }{uffdAPI, uffdFeatureWPAsync, 0}
	if _, _, errno := unix.Syscall(unix.SYS_IOCTL, fd, uffdioAPI, uintptr(unsafe.Pointer(&api))); errno != 0 || api.features&uffdFeatureWPAsync == 0 {
		unix.Close(int(fd))
		return -1
	}
	return int(fd)
})

// Off asks the kernel to map b's pages into the process only
// as they are touched, without fault-around (see above). b must start a
// mapping made by mmap; its length is rounded up to a page, as mmap
// rounds it. It reports whether the kernel agreed; when it does not,
// nothing changes.
func Off(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	page := uintptr(unix.Getpagesize())
	if uintptr(unsafe.Pointer(&b[0]))%page != 0 {
		return false
	}
	fd := uffd()
	if fd < 0 {
		return false
	}
	reg := struct{ start, len, mode, ioctls uint64 }{uint64(uintptr(unsafe.Pointer(&b[0]))), uint64((uintptr(len(b)) + page - 1) &^ (page - 1)), uffdioRegisterModeWP, 0}
	_, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), uffdioRegister, uintptr(unsafe.Pointer(&reg)))
	return errno == 0
}
