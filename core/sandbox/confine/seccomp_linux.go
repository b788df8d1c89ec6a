package confine

import (
	"encoding/binary"
	"errors"
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The seccomp filter is built and assembled by pi (package sandbox,
// filter_linux.go), once per run and network mode, and handed to the
// helper in the Spec as the raw program: the helper only loads it. Building
// it here would link the assembler and the system-call tables into every
// call's start-up and redo the same work each time.

// filterInsnSize is the size of one struct sock_filter.
const filterInsnSize = 8

// EncodeFilter is prog as Spec.Filter carries it: each instruction's code,
// jt, jf and k in the machine's byte order (pi and its helper run on the
// same machine).
func EncodeFilter(prog []unix.SockFilter) []byte {
	b := make([]byte, 0, len(prog)*filterInsnSize)
	for _, in := range prog {
		b = binary.NativeEndian.AppendUint16(b, in.Code)
		b = append(b, in.Jt, in.Jf)
		b = binary.NativeEndian.AppendUint32(b, in.K)
	}
	return b
}

// decodeFilter reverses EncodeFilter, refusing what the kernel would not
// load: an empty program, a partial instruction, more than BPF_MAXINSNS.
func decodeFilter(b []byte) ([]unix.SockFilter, error) {
	n := len(b) / filterInsnSize
	switch {
	case len(b) == 0:
		return nil, errors.New("the policy has no seccomp filter")
	case len(b)%filterInsnSize != 0:
		return nil, fmt.Errorf("the seccomp filter is %d bytes, not whole instructions", len(b))
	case n > unix.BPF_MAXINSNS:
		return nil, fmt.Errorf("the seccomp filter has %d instructions (at most %d)", n, unix.BPF_MAXINSNS)
	}
	prog := make([]unix.SockFilter, n)
	for i := range prog {
		r := b[i*filterInsnSize:]
		prog[i] = unix.SockFilter{Code: binary.NativeEndian.Uint16(r), Jt: r[2], Jf: r[3], K: binary.NativeEndian.Uint32(r[4:])}
	}
	return prog, nil
}

// installFilter loads prog into the calling thread (the one that
// executes the command; no_new_privs must already be set).
func installFilter(prog []unix.SockFilter) error {
	if !SeccompSupported() {
		return errors.New("not supported by this kernel")
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	_, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&fprog)))
	if errno != 0 {
		return errno
	}
	return nil
}

// SeccompSupported reports whether this kernel has seccomp filters: the
// strict mode takes no flags, so asking for it with one fails with EINVAL
// where the system call exists (and with ENOSYS or EPERM where not).
func SeccompSupported() bool {
	_, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_STRICT, 1, 0)
	return errno == unix.EINVAL
}
