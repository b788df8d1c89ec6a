package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"unsafe"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/elastic/go-seccomp-bpf/arch"
	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/cpu"
	"golang.org/x/sys/unix"
)

// RunHelper is the body of pi's hidden helper command. args are the
// arguments after [HelperArg]: SPEC -- PROGRAM ARGS... It confines the
// process (no_new_privs, Landlock, and for network off a seccomp filter)
// and executes PROGRAM; it returns only on failure, with exit status 126
// after telling stderr why. It never runs PROGRAM unconfined.
func RunHelper(args []string, stderr io.Writer) int {
	if err := helper(args); err != nil {
		fmt.Fprintf(stderr, "pi sandbox: %v\n", err)
		return 126
	}
	return 126 // unreachable: helper execs or fails
}

func helper(args []string) error {
	if len(args) < 3 || args[1] != "--" {
		return errors.New("usage: pi " + HelperArg + " SPEC -- PROGRAM [ARGS...]")
	}
	var s spec
	if err := json.Unmarshal([]byte(args[0]), &s); err != nil {
		return fmt.Errorf("bad policy: %w", err)
	}
	argv := args[2:]
	prog, err := exec.LookPath(argv[0])
	if err != nil {
		return err
	}
	for _, d := range s.Create {
		// A cache for a program that is not installed is not created, so
		// home does not fill with other tools' directories. Best effort: a
		// cache that cannot be created is simply absent.
		if _, err := os.Stat(d.Path); err == nil {
			continue
		}
		if _, err := exec.LookPath(d.Tool); err == nil {
			_ = os.MkdirAll(d.Path, 0o755)
		}
	}
	if err := confine(s); err != nil {
		return fmt.Errorf("cannot confine the command, not running it: %w", err)
	}
	return syscall.Exec(prog, argv, os.Environ())
}

// confine restricts the calling OS thread only, which then executes the
// command: execve keeps the executing thread's no_new_privs, Landlock
// domain and seccomp filters, and ends every other thread. Restricting
// all threads (what Config.Restrict does) would signal each of the Go
// runtime's threads and wait for them, which costs milliseconds per call
// on a loaded machine and buys nothing here.
func confine(s spec) error {
	runtime.LockOSThread() // never unlocked: the thread execs
	rules := []landlock.Rule{
		landlock.RODirs("/"),
		landlock.RWFiles(s.Devices...).WithIoctlDev().IgnoreIfMissing(),
	}
	if len(s.Write) > 0 {
		rules = append(rules, landlock.RWDirs(s.Write...).WithRefer().IgnoreIfMissing())
	}
	// V5 is the newest ABI whose rights pi means to handle (file system,
	// TCP, device ioctl); BestEffort drops what older kernels lack.
	cfg := landlock.V5.BestEffort()
	if s.Network {
		// Handle file-system rights only, so TCP stays open.
		cfg = landlock.Config{HandledAccessFS: landlock.V5.HandledAccessFS}.BestEffort()
	}
	// Without network rules, a config that handles TCP (ABI 4+) refuses
	// every TCP bind and connect: a second line behind seccomp.
	fd, flags, err := cfg.NewRulesetFD(rules...)
	if err != nil {
		return fmt.Errorf("landlock: %w", err)
	}
	if fd < 0 {
		return errors.New("landlock: this kernel offers nothing to enforce")
	}
	defer unix.Close(fd)
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	if err := llsys.LandlockRestrictSelf(fd, flags); err != nil {
		return fmt.Errorf("landlock: %w", err)
	}
	if !s.Network {
		if err := denyNetwork(); err != nil {
			return fmt.Errorf("seccomp: %w", err)
		}
	}
	return nil
}

// Address families refused with network off: IPv4, IPv6 and raw packets.
// Unix and netlink sockets stay usable (local IPC, interface queries).
const (
	afInet   = 2
	afInet6  = 10
	afPacket = 17
)

// denyNetwork installs a seccomp filter that makes socket(2) fail with
// EPERM for the network families and refuses io_uring, whose socket
// operation would go around the filter.
func denyNetwork() error {
	if !seccomp.Supported() {
		return errors.New("not supported by this kernel")
	}
	insns, err := networkFilter()
	if err != nil {
		return err
	}
	prog, err := bpf.Assemble(insns)
	if err != nil {
		return err
	}
	filter := make([]unix.SockFilter, len(prog))
	for i, in := range prog {
		filter[i] = unix.SockFilter{Code: in.Op, Jt: in.Jt, Jf: in.Jf, K: in.K}
	}
	fprog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	_, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&fprog)))
	if errno != 0 {
		return errno
	}
	return nil
}

// networkFilter is the seccomp program for network off.
func networkFilter() ([]bpf.Instruction, error) {
	var socket []seccomp.NameWithConditions
	for _, af := range []uint64{afInet, afInet6, afPacket} {
		socket = append(socket, seccomp.NameWithConditions{
			Name:       "socket",
			Conditions: seccomp.ArgumentConditions{{Argument: 0, Operation: seccomp.Equal, Value: af}},
		})
	}
	pol := seccomp.Policy{
		DefaultAction: seccomp.ActionAllow,
		Syscalls: []seccomp.SyscallGroup{
			{Action: seccomp.ActionErrno, NamesWithCondtions: socket},
			{Action: seccomp.ActionErrno, Names: []string{"io_uring_setup"}},
		},
	}
	native, err := pol.Assemble()
	if err != nil {
		return nil, err
	}
	info, err := arch.GetInfo("")
	if err != nil {
		return nil, err
	}
	prog := lowWordSocketCheck(uint32(info.ID), info.SyscallNames["socket"])
	prog = append(prog, compatPrefix()...)
	return append(prog, native...), nil
}

// lowWordSocketCheck refuses socket(2) for the network families comparing
// only the low 32 bits of the first argument. The kernel reads the family
// as an int, so a caller may set the high bits at will; the library's
// 64-bit comparison alone would let socket(1<<32|AF_INET) through.
func lowWordSocketCheck(auditArch uint32, nrSocket int) []bpf.Instruction {
	if nrSocket <= 0 {
		return nil
	}
	off := uint32(16) // the low word of args[0] on little-endian machines
	if cpu.IsBigEndian {
		off = 20
	}
	return []bpf.Instruction{
		/* 0 */ bpf.LoadAbsolute{Off: 4, Size: 4},
		/* 1 */ bpf.JumpIf{Cond: bpf.JumpEqual, Val: auditArch, SkipFalse: 7},
		/* 2 */ bpf.LoadAbsolute{Off: 0, Size: 4},
		/* 3 */ bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(nrSocket), SkipFalse: 5},
		/* 4 */ bpf.LoadAbsolute{Off: off, Size: 4},
		/* 5 */ bpf.JumpIf{Cond: bpf.JumpEqual, Val: afInet, SkipTrue: 2},
		/* 6 */ bpf.JumpIf{Cond: bpf.JumpEqual, Val: afInet6, SkipTrue: 1},
		/* 7 */ bpf.JumpIf{Cond: bpf.JumpEqual, Val: afPacket, SkipFalse: 1},
		/* 8 */ bpf.RetConstant{Val: unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)},
	}
}
