package confine

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// Run is the body of pi's hidden helper command. args are the
// arguments after [HelperArg]: SPEC -- PROGRAM ARGS... It confines the
// process (no_new_privs, Landlock, and for network off a seccomp filter)
// and executes PROGRAM; it returns only on failure, with exit status 126
// after telling stderr why. It never runs PROGRAM unconfined.
func Run(args []string, stderr io.Writer) int { return run(args, stderr, false) }

// RunFromInit is [Run] for a program's init function (cmd/pi-sandbox's):
// the runtime runs every init function on the process's first thread,
// with the goroutine locked to it, so confining that thread and executing
// from it needs no runtime.LockOSThread, whose first call starts the
// runtime's template thread: one more thread to create and to end at
// execve, about 0.4 ms of a call's CPU (perf stat, load 15). Called from
// anywhere else it would confine one thread and execute from another.
func RunFromInit(args []string, stderr io.Writer) int { return run(args, stderr, true) }

func run(args []string, stderr io.Writer, inInit bool) int {
	if err := helper(args, inInit); err != nil {
		fmt.Fprintf(stderr, "pi sandbox: %v\n", err)
		return 126
	}
	return 126 // unreachable: helper execs or fails
}

func helper(args []string, inInit bool) error {
	// Capabilities, no_new_privs, Landlock and seccomp filters belong to a
	// thread: everything from dropCaps to the execve must happen on one,
	// and a goroutine may resume on another thread after any system call.
	// (Before, the lock was taken only for Landlock and seccomp, so the
	// thread whose capabilities dropCaps cleared could be another than
	// the one that executed the command.)
	if !inInit {
		runtime.LockOSThread() // never unlocked: the thread execs
	}
	if len(args) < 3 || args[1] != "--" {
		return errors.New("usage: pi " + HelperArg + " SPEC -- PROGRAM [ARGS...]")
	}
	var s Spec
	dec := json.NewDecoder(strings.NewReader(args[0]))
	dec.DisallowUnknownFields() // a rule this helper does not know must not be dropped
	if err := dec.Decode(&s); err != nil {
		return fmt.Errorf("bad policy: %w", err)
	}
	if s.Stamp != buildStamp {
		return fmt.Errorf("the policy comes from a pi built apart from this helper (stamp %q, the helper's %q): rebuild both with make build", s.Stamp, buildStamp)
	}
	filter, err := decodeFilter(s.Filter)
	if err != nil {
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
		if _, err := exec.LookPath(d.Tool); err == nil || d.Tool == AlwaysCreate {
			_ = os.MkdirAll(d.Path, 0o755)
		}
	}
	if err := applyMounts(s); err != nil {
		return fmt.Errorf("cannot protect paths for the command, not running it: %w", err)
	}
	if s.NetNS {
		if err := handOverListener(s); err != nil {
			return fmt.Errorf("cannot give the command its network namespace, not running it: %w", err)
		}
	}
	if s.Namespace || s.NetNS {
		if err := dropCaps(); err != nil {
			return fmt.Errorf("cannot drop the namespace's capabilities, not running the command: %w", err)
		}
	}
	if err := dropTerminal(); err != nil {
		return fmt.Errorf("cannot detach the command from the terminal, not running it: %w", err)
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
