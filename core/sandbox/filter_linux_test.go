package sandbox

import (
	"encoding/binary"
	"runtime"
	"testing"

	"github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/cpu"
	"golang.org/x/sys/unix"
)

// seccompData lays out struct seccomp_data for x/net/bpf's VM, which loads
// 32-bit words big-endian where the kernel loads them in native order: each
// word is written big-endian at the offset the kernel would read it from.
func seccompData(archID, nr uint32, args ...uint64) []byte {
	b := make([]byte, 64)
	binary.BigEndian.PutUint32(b[0:], nr)
	binary.BigEndian.PutUint32(b[4:], archID)
	for i, a := range args {
		lo, hi := argLow(uint32(i)), argLow(uint32(i))+4
		if cpu.IsBigEndian {
			hi = lo - 4
		}
		binary.BigEndian.PutUint32(b[lo:], uint32(a))
		binary.BigEndian.PutUint32(b[hi:], uint32(a>>32))
	}
	return b
}

func TestCommandFilter(t *testing.T) {
	native, err := arch.GetInfo("")
	if err != nil {
		t.Skip(err)
	}
	nr := func(name string) uint32 {
		n, ok := native.SyscallNames[name]
		if !ok {
			t.Fatalf("no %s on %s", name, native.Name)
		}
		return uint32(n)
	}
	const (
		allow = unix.SECCOMP_RET_ALLOW
		eperm = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
	)
	id := uint32(native.ID)
	type call struct {
		name string
		nr   uint32
		args []uint64
		on   uint32 // verdict with the network on
		off  uint32 // and off
	}
	calls := []call{
		{"socket AF_INET", nr("socket"), []uint64{unix.AF_INET}, allow, eperm},
		{"socket AF_INET6", nr("socket"), []uint64{unix.AF_INET6}, allow, eperm},
		{"socket AF_UNIX", nr("socket"), []uint64{unix.AF_UNIX}, allow, allow},
		{"socket AF_PACKET", nr("socket"), []uint64{unix.AF_PACKET}, eperm, eperm},
		{"socket AF_NETLINK", nr("socket"), []uint64{unix.AF_NETLINK}, eperm, eperm},
		{"socket AF_VSOCK", nr("socket"), []uint64{unix.AF_VSOCK}, eperm, eperm},
		{"socket AF_BLUETOOTH", nr("socket"), []uint64{unix.AF_BLUETOOTH}, eperm, eperm},
		{"socket AF_INET with high bits", nr("socket"), []uint64{1<<32 | unix.AF_INET}, allow, eperm}, // the kernel reads an int
		{"socket AF_VSOCK with high bits", nr("socket"), []uint64{1<<32 | unix.AF_VSOCK}, eperm, eperm},
		{"socket AF_UNIX with high bits", nr("socket"), []uint64{1<<32 | unix.AF_UNIX}, allow, allow},
		{"socketpair AF_UNIX", nr("socketpair"), []uint64{unix.AF_UNIX}, allow, allow},
		{"socketpair AF_VSOCK", nr("socketpair"), []uint64{unix.AF_VSOCK}, eperm, eperm},
		{"io_uring_setup", nr("io_uring_setup"), nil, eperm, eperm},
		{"ioctl TIOCSTI", nr("ioctl"), []uint64{0, unix.TIOCSTI}, eperm, eperm},
		{"ioctl TIOCSTI on the terminal with high bits", nr("ioctl"), []uint64{0, 1<<32 | unix.TIOCSTI}, eperm, eperm},
		{"ioctl TIOCLINUX", nr("ioctl"), []uint64{3, unix.TIOCLINUX}, eperm, eperm},
		{"ioctl TCGETS", nr("ioctl"), []uint64{0, unix.TCGETS}, allow, allow},
		{"ioctl FIONREAD", nr("ioctl"), []uint64{0, unix.TIOCINQ}, allow, allow},
		{"openat", nr("openat"), nil, allow, allow},
		{"connect", nr("connect"), nil, allow, allow},
	}
	if runtime.GOARCH == "amd64" {
		calls = append(calls,
			call{"i386 socket AF_INET", 359, []uint64{unix.AF_INET}, allow, eperm},
			call{"i386 socket AF_UNIX", 359, []uint64{unix.AF_UNIX}, allow, allow},
			call{"i386 socket AF_VSOCK", 359, []uint64{unix.AF_VSOCK}, eperm, eperm},
			call{"i386 socketcall SYS_SOCKET", 102, []uint64{1}, eperm, eperm},
			call{"i386 socketcall SYS_SOCKETPAIR", 102, []uint64{8}, eperm, eperm},
			call{"i386 socketcall SYS_CONNECT", 102, []uint64{3}, allow, allow},
			call{"i386 io_uring_setup", 425, nil, eperm, eperm},
			call{"i386 ioctl TIOCSTI", 54, []uint64{0, unix.TIOCSTI}, eperm, eperm},
			call{"i386 ioctl TCGETS", 54, []uint64{0, unix.TCGETS}, allow, allow},
			call{"i386 open", 5, nil, allow, allow},
		)
	}
	for _, network := range []bool{true, false} {
		mode := netOff
		if network {
			mode = netOn
		}
		insns, err := commandFilter(mode)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := bpf.Assemble(insns); err != nil {
			t.Fatal(err)
		}
		vm, err := bpf.NewVM(insns)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range calls {
			a := id
			if len(c.name) > 5 && c.name[:5] == "i386 " {
				a = 0x40000003
			}
			got, err := vm.Run(seccompData(a, c.nr, c.args...))
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			want := c.on
			if !network {
				want = c.off
			}
			if uint32(got) != want {
				t.Errorf("network %v, %s: got %#x, want %#x", network, c.name, got, want)
			}
		}
		if runtime.GOARCH == "amd64" {
			got, _ := vm.Run(seccompData(id, 0x40000000|41, unix.AF_INET))
			if uint32(got)&unix.SECCOMP_RET_ACTION_FULL != unix.SECCOMP_RET_ERRNO {
				t.Errorf("x32 socket: got %#x, want an errno", got)
			}
		}
	}
}

func TestCommandFilterProxyOnly(t *testing.T) {
	native, err := arch.GetInfo("")
	if err != nil {
		t.Skip(err)
	}
	nr := func(name string) uint32 {
		n, ok := native.SyscallNames[name]
		if !ok {
			t.Fatalf("no %s on %s", name, native.Name)
		}
		return uint32(n)
	}
	const (
		allow = unix.SECCOMP_RET_ALLOW
		eperm = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
	)
	id := uint32(native.ID)
	type call struct {
		name string
		arch uint32
		nr   uint32
		args []uint64
		want uint32
	}
	const stream, dgram = unix.SOCK_STREAM, unix.SOCK_DGRAM
	calls := []call{
		{"TCP", id, nr("socket"), []uint64{unix.AF_INET, stream, 0}, allow},
		{"TCP6 IPPROTO_TCP", id, nr("socket"), []uint64{unix.AF_INET6, stream, unix.IPPROTO_TCP}, allow},
		{"TCP non-blocking close-on-exec", id, nr("socket"), []uint64{unix.AF_INET, stream | unix.SOCK_NONBLOCK | unix.SOCK_CLOEXEC, 0}, allow},
		{"UDP", id, nr("socket"), []uint64{unix.AF_INET, dgram, 0}, eperm},
		{"UDP6", id, nr("socket"), []uint64{unix.AF_INET6, dgram | unix.SOCK_CLOEXEC, unix.IPPROTO_UDP}, eperm},
		{"ICMP ping", id, nr("socket"), []uint64{unix.AF_INET, dgram, unix.IPPROTO_ICMP}, eperm},
		{"raw", id, nr("socket"), []uint64{unix.AF_INET, unix.SOCK_RAW, 0}, eperm},
		{"SCTP stream", id, nr("socket"), []uint64{unix.AF_INET, stream, unix.IPPROTO_SCTP}, eperm},
		{"MPTCP", id, nr("socket"), []uint64{unix.AF_INET, stream, unix.IPPROTO_MPTCP}, eperm},
		{"SEQPACKET", id, nr("socket"), []uint64{unix.AF_INET, unix.SOCK_SEQPACKET, 0}, eperm},
		{"AF_UNIX datagram", id, nr("socket"), []uint64{unix.AF_UNIX, dgram, 0}, allow},
		{"AF_VSOCK", id, nr("socket"), []uint64{unix.AF_VSOCK, stream, 0}, eperm},
		{"sendto", id, nr("sendto"), []uint64{3, 0, 0, 0}, allow},
		{"sendto MSG_FASTOPEN", id, nr("sendto"), []uint64{3, 0, 0, unix.MSG_FASTOPEN | unix.MSG_NOSIGNAL}, eperm},
		{"sendmsg MSG_FASTOPEN", id, nr("sendmsg"), []uint64{3, 0, unix.MSG_FASTOPEN}, eperm},
		{"sendmsg", id, nr("sendmsg"), []uint64{3, 0, unix.MSG_NOSIGNAL}, allow},
		{"sendmmsg MSG_FASTOPEN", id, nr("sendmmsg"), []uint64{3, 0, 1, unix.MSG_FASTOPEN}, eperm},
		{"ioctl TIOCSTI", id, nr("ioctl"), []uint64{0, unix.TIOCSTI}, eperm},
		{"connect", id, nr("connect"), nil, allow},
	}
	if runtime.GOARCH == "amd64" {
		const i386 = 0x40000003
		calls = append(calls,
			call{"i386 TCP", i386, 359, []uint64{unix.AF_INET, stream, 0}, allow},
			call{"i386 UDP", i386, 359, []uint64{unix.AF_INET, dgram, 0}, eperm},
			call{"i386 sendto MSG_FASTOPEN", i386, 369, []uint64{3, 0, 0, unix.MSG_FASTOPEN}, eperm},
			call{"i386 socketcall SYS_SENDTO", i386, 102, []uint64{11}, eperm},
			call{"i386 socketcall SYS_SENDMSG", i386, 102, []uint64{16}, eperm},
			call{"i386 socketcall SYS_CONNECT", i386, 102, []uint64{3}, allow},
		)
	}
	insns, err := commandFilter(netProxyOnly)
	if err != nil {
		t.Fatal(err)
	}
	vm, err := bpf.NewVM(insns)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range calls {
		got, err := vm.Run(seccompData(c.arch, c.nr, c.args...))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if uint32(got) != c.want {
			t.Errorf("%s: got %#x, want %#x", c.name, got, c.want)
		}
	}
	// With the network on, UDP stays open (the mode is not the default).
	on, _ := commandFilter(netOn)
	vm, _ = bpf.NewVM(on)
	if got, _ := vm.Run(seccompData(id, nr("socket"), unix.AF_INET, dgram, 0)); uint32(got) != allow {
		t.Errorf("network on, UDP: %#x", got)
	}
}
