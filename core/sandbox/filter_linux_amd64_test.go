package sandbox

import (
	"encoding/binary"
	"testing"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// seccompData lays out struct seccomp_data for x/net/bpf's VM, which loads
// 32-bit words big-endian where the kernel loads them in native order: each
// word is written big-endian at the offset the kernel would read it from.
func seccompData(arch, nr uint32, arg0 uint64) []byte {
	b := make([]byte, 64)
	binary.BigEndian.PutUint32(b[0:], nr)
	binary.BigEndian.PutUint32(b[4:], arch)
	binary.BigEndian.PutUint32(b[16:], uint32(arg0))     // low word (little-endian u64)
	binary.BigEndian.PutUint32(b[20:], uint32(arg0>>32)) // high word
	return b
}

func TestNetworkFilter(t *testing.T) {
	insns, err := networkFilter()
	if err != nil {
		t.Fatal(err)
	}
	vm, err := bpf.NewVM(insns)
	if err != nil {
		t.Fatal(err)
	}
	const (
		archX8664 = 0xc000003e
		archI386  = 0x40000003
		x32Bit    = 0x40000000
		allow     = unix.SECCOMP_RET_ALLOW
		eperm     = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
	)
	tests := []struct {
		name     string
		arch, nr uint32
		arg0     uint64
		want     uint32
	}{
		{"socket AF_INET", archX8664, unix.SYS_SOCKET, unix.AF_INET, eperm},
		{"socket AF_INET6", archX8664, unix.SYS_SOCKET, unix.AF_INET6, eperm},
		{"socket AF_PACKET", archX8664, unix.SYS_SOCKET, unix.AF_PACKET, eperm},
		{"socket AF_UNIX", archX8664, unix.SYS_SOCKET, unix.AF_UNIX, allow},
		{"socket AF_NETLINK", archX8664, unix.SYS_SOCKET, unix.AF_NETLINK, allow},
		{"socket AF_INET with high bits", archX8664, unix.SYS_SOCKET, 1<<32 | unix.AF_INET, eperm}, // the kernel reads an int
		{"socket AF_UNIX with high bits", archX8664, unix.SYS_SOCKET, 1<<32 | unix.AF_UNIX, allow},
		{"io_uring_setup", archX8664, unix.SYS_IO_URING_SETUP, 0, eperm},
		{"openat", archX8664, unix.SYS_OPENAT, 0, allow},
		{"i386 socket AF_INET", archI386, 359, unix.AF_INET, eperm},
		{"i386 socket AF_UNIX", archI386, 359, unix.AF_UNIX, allow},
		{"i386 socketcall SYS_SOCKET", archI386, 102, 1, eperm},
		{"i386 socketcall SYS_CONNECT", archI386, 102, 3, allow},
		{"i386 io_uring_setup", archI386, 425, 0, eperm},
		{"i386 open", archI386, 5, 0, allow},
	}
	for _, tt := range tests {
		got, err := vm.Run(seccompData(tt.arch, tt.nr, tt.arg0))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if uint32(got) != tt.want {
			t.Errorf("%s: got %#x, want %#x", tt.name, got, tt.want)
		}
	}
	got, _ := vm.Run(seccompData(archX8664, x32Bit|41, unix.AF_INET))
	if uint32(got)&unix.SECCOMP_RET_ACTION_FULL != unix.SECCOMP_RET_ERRNO {
		t.Errorf("x32 socket: got %#x, want an errno", got)
	}
}
