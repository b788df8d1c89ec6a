package sandbox

import (
	"fmt"
	"sync"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/cpu"
	"golang.org/x/sys/unix"

	"github.com/piwasm/pi/core/sandbox/confine"
)

// The seccomp filter every confined command runs under, in every confined
// mode. It is written out by hand rather than with the seccomp library's
// policy type because the checks it needs compare the low 32 bits of an
// argument (the kernel reads socket's family and ioctl's request as ints,
// so a caller may set the high bits at will; the library compares all 64)
// and because a second system-call ABI (32-bit x86 on amd64) needs the
// same checks under its own numbers. The system-call numbers are in
// systable_linux.go, checked against the library's tables by a test.
//
// What it refuses, with EPERM:
//   - ioctl TIOCSTI and TIOCLINUX on any descriptor: both push bytes into a
//     terminal's input, which the user's shell (or pi's own UI) would read
//     as typed, outside the sandbox.
//   - sockets of every family but AF_UNIX and, with the network on,
//     AF_INET and AF_INET6 (socket and socketpair): AF_PACKET, AF_NETLINK,
//     AF_VSOCK, AF_BLUETOOTH and the rest reach past the network rules.
//   - io_uring_setup: io_uring's own socket operation goes around the
//     socket checks.
//   - on 32-bit x86, socketcall's SOCKET and SOCKETPAIR, whose arguments
//     are in memory the filter cannot read.
//   - in allow-list mode (netProxyOnly), every AF_INET/AF_INET6 socket but
//     plain TCP (type SOCK_STREAM, protocol 0 or IPPROTO_TCP): Landlock
//     (before ABI 10) restricts TCP only, so UDP, SCTP, MPTCP, ICMP "ping"
//     sockets and raw sockets would go around the rule that holds TCP to
//     pi's proxy. UDP is refused outright, DNS included: the proxy
//     resolves names, commands need not. And sendto/sendmsg/sendmmsg with
//     MSG_FASTOPEN, which connect a TCP socket without the connect hook
//     Landlock checks (landlock-lsm/linux issue 41); on 32-bit x86
//     socketcall's SENDTO, SENDMSG and SENDMMSG too, for the same reason.
// x32 system calls on amd64 fail with ENOSYS: nothing pi runs uses them.

// filterFamilies lists the socket families a command may create (in
// netProxyOnly mode the internet ones are checked further).
func filterFamilies(mode netMode) []uint32 {
	if mode != netOff {
		return []uint32{unix.AF_UNIX, unix.AF_INET, unix.AF_INET6}
	}
	return []uint32{unix.AF_UNIX}
}

// ttyInjection are the ioctl requests that put bytes into a terminal's
// input queue.
var ttyInjection = []uint32{unix.TIOCSTI, unix.TIOCLINUX}

const (
	retAllow  = unix.SECCOMP_RET_ALLOW
	retEPERM  = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
	retENOSYS = unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)
	x32Bit    = 0x40000000
	// socketcall(2) call numbers whose arguments would create a socket.
	sysSocket, sysSocketpair = 1, 8
	// socketcall(2) call numbers that send, with flags the filter cannot
	// read (MSG_FASTOPEN would connect).
	sysSendto, sysSendmsg, sysSendmmsg = 11, 16, 20
	sockTypeMask                       = 0xf // type without SOCK_NONBLOCK and SOCK_CLOEXEC
)

// commandFilter is the whole program for this machine.
func commandFilter(network netMode) ([]bpf.Instruction, error) {
	native, err := nativeSysTable()
	if err != nil {
		return nil, err
	}
	var a asm
	if err := a.archBlock(native, network, "compat"); err != nil {
		return nil, err
	}
	a.label("compat")
	if c := compatArch(); c != nil {
		if err := a.archBlock(c, network, "allow"); err != nil {
			return nil, err
		}
	}
	a.label("allow")
	a.ret(retAllow)
	return a.assemble()
}

// archBlock emits the checks for one system-call ABI; calls of another ABI
// jump to next.
func (a *asm) archBlock(info *sysTable, network netMode, next string) error {
	nr := func(name string) (uint32, bool) {
		n, ok := info.nr[name]
		return n, ok
	}
	p := info.name + "."
	a.ld(offArch)
	a.jne(info.id, next)
	a.ld(offNr)
	if info.id == unix.AUDIT_ARCH_X86_64 {
		a.jge(x32Bit, p+"enosys")
	}
	for _, name := range []string{"socket", "socketpair"} {
		if n, ok := nr(name); ok {
			a.jeq(n, p+"socket")
		}
	}
	n, ok := nr("ioctl")
	if !ok {
		return fmt.Errorf("seccomp: no ioctl in the %s system-call table", info.name)
	}
	a.jeq(n, p+"ioctl")
	if n, ok := nr("socketcall"); ok {
		a.jeq(n, p+"socketcall")
	}
	if n, ok := nr("io_uring_setup"); ok {
		a.jeq(n, p+"deny")
	}
	// The send calls and the argument that holds their flags.
	sends := []struct {
		name string
		arg  uint32
	}{{"sendto", 3}, {"sendmsg", 2}, {"sendmmsg", 3}}
	if network == netProxyOnly {
		for _, sc := range sends {
			if n, ok := nr(sc.name); ok {
				a.jeq(n, p+sc.name)
			}
		}
	}
	a.jmp(next)

	a.label(p + "socket")
	a.ld(argLow(0))
	if network == netProxyOnly {
		a.jeq(unix.AF_INET, p+"inet")
		a.jeq(unix.AF_INET6, p+"inet")
	}
	for _, f := range filterFamilies(network) {
		a.jeq(f, next)
	}
	a.jmp(p + "deny")

	if network == netProxyOnly {
		// Plain TCP only: the type (flags masked off) is SOCK_STREAM and
		// the protocol 0 or IPPROTO_TCP.
		a.label(p + "inet")
		a.ld(argLow(1))
		a.and(sockTypeMask)
		a.jne(unix.SOCK_STREAM, p+"deny")
		a.ld(argLow(2))
		a.jeq(0, next)
		a.jeq(unix.IPPROTO_TCP, next)
		a.jmp(p + "deny")
		for _, sc := range sends {
			if _, ok := nr(sc.name); ok {
				a.label(p + sc.name)
				a.ld(argLow(sc.arg))
				a.and(unix.MSG_FASTOPEN)
				a.jne(0, p+"deny")
				a.jmp(next)
			}
		}
	}

	a.label(p + "ioctl")
	a.ld(argLow(1))
	for _, req := range ttyInjection {
		a.jeq(req, p+"deny")
	}
	a.jmp(next)

	if _, ok := nr("socketcall"); ok {
		a.label(p + "socketcall")
		a.ld(argLow(0))
		a.jeq(sysSocket, p+"deny")
		a.jeq(sysSocketpair, p+"deny")
		if network == netProxyOnly {
			a.jeq(sysSendto, p+"deny")
			a.jeq(sysSendmsg, p+"deny")
			a.jeq(sysSendmmsg, p+"deny")
		}
		a.jmp(next)
	}
	a.label(p + "enosys")
	a.ret(retENOSYS)
	a.label(p + "deny")
	a.ret(retEPERM)
	return nil
}

// Offsets into struct seccomp_data.
const (
	offNr   = 0
	offArch = 4
	offArgs = 16
)

// argLow is the offset of the low 32 bits of argument i.
func argLow(i uint32) uint32 {
	off := offArgs + 8*i
	if cpu.IsBigEndian {
		off += 4
	}
	return off
}

// asm is a tiny BPF assembler with named labels, so the filter reads as a
// list of checks instead of hand-counted jump offsets.
type asm struct {
	ins    []bpf.Instruction
	labels map[string]int
	fixups []fixup
}

type fixup struct {
	at    int
	label string
}

func (a *asm) ld(off uint32) { a.ins = append(a.ins, bpf.LoadAbsolute{Off: off, Size: 4}) }
func (a *asm) and(v uint32) {
	a.ins = append(a.ins, bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: v})
}
func (a *asm) ret(v uint32) { a.ins = append(a.ins, bpf.RetConstant{Val: v}) }

func (a *asm) jump(cond bpf.JumpTest, val uint32, label string) {
	a.fixups = append(a.fixups, fixup{len(a.ins), label})
	a.ins = append(a.ins, bpf.JumpIf{Cond: cond, Val: val})
}

func (a *asm) jeq(val uint32, label string) { a.jump(bpf.JumpEqual, val, label) }
func (a *asm) jne(val uint32, label string) { a.jump(bpf.JumpNotEqual, val, label) }
func (a *asm) jge(val uint32, label string) { a.jump(bpf.JumpGreaterOrEqual, val, label) }

func (a *asm) jmp(label string) {
	a.fixups = append(a.fixups, fixup{len(a.ins), label})
	a.ins = append(a.ins, bpf.Jump{})
}

func (a *asm) label(name string) {
	if a.labels == nil {
		a.labels = map[string]int{}
	}
	a.labels[name] = len(a.ins)
}

// assemble resolves the labels; every jump goes forward.
func (a *asm) assemble() ([]bpf.Instruction, error) {
	for _, f := range a.fixups {
		to, ok := a.labels[f.label]
		if !ok {
			return nil, fmt.Errorf("seccomp: no label %q", f.label)
		}
		skip := to - f.at - 1
		if skip < 0 {
			return nil, fmt.Errorf("seccomp: backward jump to %q", f.label)
		}
		switch in := a.ins[f.at].(type) {
		case bpf.JumpIf:
			if skip > 255 {
				return nil, fmt.Errorf("seccomp: jump to %q too long", f.label)
			}
			in.SkipTrue = uint8(skip)
			a.ins[f.at] = in
		case bpf.Jump:
			a.ins[f.at] = bpf.Jump{Skip: uint32(skip)}
		}
	}
	return a.ins, nil
}

// compiledFilter is compileFilter's program for each mode, built on first
// use and kept for the process: it depends on the mode and the machine
// only.
var compiledFilter = func() func(netMode) ([]byte, error) {
	var modes [netProxyOnly + 1]func() ([]byte, error)
	for m := range modes {
		modes[m] = sync.OnceValues(func() ([]byte, error) { return compileFilter(netMode(m)) })
	}
	return func(m netMode) ([]byte, error) { return modes[m]() }
}()

// compileFilter is the command filter for network mode as the helper
// installs it (see [confine.Spec] Filter): built and assembled here, once
// per run and mode, so that no bash call's helper spends its start-up on
// it.
func compileFilter(network netMode) ([]byte, error) {
	insns, err := commandFilter(network)
	if err != nil {
		return nil, err
	}
	prog, err := bpf.Assemble(insns)
	if err != nil {
		return nil, err
	}
	filter := make([]unix.SockFilter, len(prog))
	for i, in := range prog {
		filter[i] = unix.SockFilter{Code: in.Op, Jt: in.Jt, Jf: in.Jf, K: in.K}
	}
	return confine.EncodeFilter(filter), nil
}
