package confine

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"syscall"
	"unsafe"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// Run is the body of pi's hidden helper command. args are the
// arguments after [HelperArg]: SPEC -- PROGRAM ARGS... It confines the
// process (no_new_privs, Landlock, and for network off a seccomp filter)
// and executes PROGRAM; it returns only on failure, with exit status 126
// after telling stderr why. It never runs PROGRAM unconfined.
func Run(args []string, stderr io.Writer) int { return run(args, stderr, start{}) }

// RunFromInit is [Run] for a program's init function (cmd/pi-sandbox's):
// the runtime runs every init function on the process's first thread,
// with the goroutine locked to it, so confining that thread and executing
// from it needs no runtime.LockOSThread, whose first call starts the
// runtime's template thread: one more thread to create and to end at
// execve, about 0.4 ms of a call's CPU (perf stat, load 15). Called from
// anywhere else it would confine one thread and execute from another.
func RunFromInit(args []string, stderr io.Writer) int {
	return run(args, stderr, start{inInit: true})
}

// RunSelfNS is [RunFromInit] for a helper started with [SelfNSArg]
// (cmd/pi-sandbox's init): e is what its entry point did; e.Unshared is
// [EntryNotRun] when it did not call unshare. The helper maps pi's
// user and group (from the policy) in the namespaces it is in, and from
// there on does what a helper started in them by pi does. It refuses, and
// the command does not run, when the entry point did not create them.
// With [ProbeArg] UID GID as args it only creates them and exits 0.
func RunSelfNS(args []string, e Entry, stderr io.Writer) int {
	if len(args) == 3 && args[0] == ProbeArg {
		if err := probeSelfNS(e.Unshared, args[1], args[2]); err != nil {
			fmt.Fprintf(stderr, "pi sandbox: %v\n", err)
			return 126
		}
		return 0
	}
	return run(args, stderr, start{inInit: true, selfNS: true, entry: e})
}

// start says how the helper was started.
type start struct {
	inInit bool // from an init function, on the process's first thread
	// selfNS: with SelfNSArg, in the namespaces its entry point created
	// (entry says what the entry point did).
	selfNS bool
	entry  Entry
}

func run(args []string, stderr io.Writer, how start) int {
	if err := helper(args, how); err != nil {
		fmt.Fprintf(stderr, "pi sandbox: %v\n", err)
		return 126
	}
	return 126 // unreachable: helper execs or fails
}

func helper(args []string, how start) error {
	// Capabilities, no_new_privs, Landlock and seccomp filters belong to a
	// thread: everything from dropCaps to the execve must happen on one,
	// and a goroutine may resume on another thread after any system call.
	// (Before, the lock was taken only for Landlock and seccomp, so the
	// thread whose capabilities dropCaps cleared could be another than
	// the one that executed the command.)
	if !how.inInit {
		runtime.LockOSThread() // never unlocked: the thread execs
	}
	if len(args) < 3 || args[1] != "--" {
		if how.selfNS {
			return errors.New("usage: pi-sandbox " + SelfNSArg + " SPEC -- PROGRAM [ARGS...]")
		}
		return errors.New("usage: pi " + HelperArg + " SPEC -- PROGRAM [ARGS...]")
	}
	// A rule this helper does not know must not be dropped: decodeSpec
	// refuses unknown fields.
	s, err := decodeSpec(args[0])
	if err != nil {
		return fmt.Errorf("bad policy: %w", err)
	}
	if s.Stamp != buildStamp {
		return fmt.Errorf("the policy comes from a pi built apart from this helper (stamp %q, the helper's %q): rebuild both with make build", s.Stamp, buildStamp)
	}
	filter, err := decodeFilter(s.Filter)
	if err != nil {
		return fmt.Errorf("bad policy: %w", err)
	}
	if how.selfNS {
		// First: until pi's user is mapped, the helper's files would
		// belong to nobody and it could not create any.
		if err := ownNamespaces(how.entry.Unshared, s.UID, s.GID); err != nil {
			return fmt.Errorf("%w; not running the command", err)
		}
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
		if _, err := exec.LookPath(d.Tool); err == nil || d.Tool == AlwaysCreate {
			_ = os.MkdirAll(d.Path, 0o755)
		}
	}
	if err := applyMounts(s); err != nil {
		return fmt.Errorf("cannot protect paths for the command, not running it: %w", err)
	}
	if s.NetNS {
		if how.selfNS {
			// A network namespace has no single-thread rule: this
			// thread, which executes the command, enters it alone.
			if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
				return fmt.Errorf("cannot give the command its network namespace, not running it: %w", err)
			}
		}
		if err := handOverListener(s); err != nil {
			return fmt.Errorf("cannot give the command its network namespace, not running it: %w", err)
		}
	}
	if s.Namespace || s.NetNS || how.selfNS {
		if err := dropCaps(); err != nil {
			return fmt.Errorf("cannot drop the namespace's capabilities, not running the command: %w", err)
		}
	}
	if err := dropTerminal(); err != nil {
		return fmt.Errorf("cannot detach the command from the terminal, not running it: %w", err)
	}
	if len(how.entry.Affinity) > 0 {
		if err := setAffinity(how.entry.Affinity); err != nil {
			return fmt.Errorf("cannot give the command back the CPUs it may run on, not running it: %w", err)
		}
	}
	if err := restrict(s, filter); err != nil {
		return fmt.Errorf("cannot confine the command, not running it: %w", err)
	}
	return syscall.Exec(prog, argv, os.Environ())
}

// dropTerminal makes sure the command has no controlling terminal, so it
// cannot open /dev/tty and type into the user's terminal or read pi's
// keyboard. pi starts the helper in a session of its own ([Shell] sets
// setsid), which has none; a helper started otherwise starts one, or, as a
// process-group leader that cannot, gives the terminal up. If a terminal
// is still reachable the command does not run.
func dropTerminal() error {
	if sid, _ := unix.Getsid(0); sid != unix.Getpid() {
		if _, err := unix.Setsid(); err != nil {
			if fd, err := unix.Open("/dev/tty", unix.O_RDONLY|unix.O_NOCTTY|unix.O_CLOEXEC, 0); err == nil {
				_ = unix.IoctlSetInt(fd, unix.TIOCNOTTY, 0)
				unix.Close(fd)
			}
		}
	}
	fd, err := unix.Open("/dev/tty", unix.O_RDONLY|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err == nil {
		unix.Close(fd)
		return errors.New("/dev/tty is still open to it")
	}
	return nil
}

// restrict restricts the calling OS thread only, which then executes the
// command: execve keeps the executing thread's no_new_privs, Landlock
// domain and seccomp filters, and ends every other thread. Restricting
// all threads (what Config.Restrict does) would signal each of the Go
// runtime's threads and wait for them, which costs milliseconds per call
// on a loaded machine and buys nothing here.
func restrict(s Spec, filter []unix.SockFilter) error {
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
	switch {
	case s.Network:
		// Handle file-system rights only, so TCP stays open.
		cfg = landlock.Config{HandledAccessFS: landlock.V5.HandledAccessFS}.BestEffort()
	case s.ProxyPort != 0:
		// Allow-list mode: TCP connect to the proxy's port only, no TCP
		// bind. Only an ABI that handles TCP does this; BestEffort would
		// quietly drop the TCP rights on an older kernel, so check first.
		v, err := llsys.LandlockGetABIVersion()
		if err != nil || v < NetAllowMinABI {
			return fmt.Errorf("landlock: the network allow-list needs ABI %d, this kernel has %d", NetAllowMinABI, v)
		}
		if s.ProxyPort < 1 || s.ProxyPort > 65535 {
			return fmt.Errorf("bad proxy port %d", s.ProxyPort)
		}
		rules = append(rules, landlock.ConnectTCP(uint16(s.ProxyPort)))
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
	if err := installFilter(filter); err != nil {
		return fmt.Errorf("seccomp: %w", err)
	}
	return nil
}

// ownNamespaces finishes, for a helper started with [SelfNSArg], what its
// entry point began: unshared is the entry point's result. It refuses
// when the helper is not in a user namespace of its own (the entry point
// did not run, or the kernel refused it), and maps uid and gid to
// themselves there, denying setgroups first as the kernel requires of a
// process that maps its own group (pi's [setNamespaces] does the same
// for the helper it starts in namespaces).
func ownNamespaces(unshared int64, uid, gid int) error {
	switch {
	case unshared == EntryNotRun:
		return errors.New("the helper was asked to create its own namespaces but was built without its entry point (cmd/pi-sandbox linked without the Makefile's -E flag): it is still in pi's")
	case unshared < 0:
		return fmt.Errorf("cannot create a user and mount namespace: %w", syscall.Errno(-unshared))
	case unshared != 0:
		return fmt.Errorf("cannot create a user and mount namespace: unshare returned %d", unshared)
	}
	for _, f := range []struct{ path, data string }{
		{"/proc/self/setgroups", "deny"},
		{"/proc/self/uid_map", fmt.Sprintf("%d %d 1\n", uid, uid)},
		{"/proc/self/gid_map", fmt.Sprintf("%d %d 1\n", gid, gid)},
	} {
		if err := writeProc(f.path, f.data); err != nil {
			return fmt.Errorf("map pi's user and group in the helper's namespace: %w", err)
		}
	}
	return nil
}

// writeProc writes data to the proc file path in one write, as the id
// map files require.
func writeProc(path, data string) error {
	fd, err := unix.Open(path, unix.O_WRONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	n, err := unix.Write(fd, []byte(data))
	if err == nil && n != len(data) {
		err = fmt.Errorf("short write to %s", path)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// probeSelfNS is the helper's side of pi's probe ([ProbeArg]): the
// namespaces, the maps, and a first mount call, which fails where the
// kernel or a security module gives the namespace no mount rights.
func probeSelfNS(unshared int64, uid, gid string) error {
	u, err1 := strconv.Atoi(uid)
	g, err2 := strconv.Atoi(gid)
	if err1 != nil || err2 != nil {
		return fmt.Errorf("usage: pi-sandbox %s %s UID GID", SelfNSArg, ProbeArg)
	}
	if err := ownNamespaces(unshared, u, g); err != nil {
		return err
	}
	if err := unix.Mount("none", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make mounts private: %w", err)
	}
	return nil
}

// setAffinity sets the calling thread's CPU affinity to mask, as
// sched_getaffinity wrote it; the thread then executes the command, which
// keeps it.
func setAffinity(mask []byte) error {
	_, _, errno := unix.RawSyscall(unix.SYS_SCHED_SETAFFINITY, 0, uintptr(len(mask)), uintptr(unsafe.Pointer(&mask[0])))
	if errno != 0 {
		return errno
	}
	return nil
}
