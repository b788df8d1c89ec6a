package sandbox

import (
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/piwasm/pi/core/sandbox/confine"
)

// The protected paths and the read deny list are enforced for commands in
// a mount namespace of their own: Landlock grants rights per directory
// hierarchy, so it cannot leave .git/hooks read-only inside a writable
// working tree (nor hide ~/.ssh while ~ stays readable) without also
// refusing new files at the tree's root. The helper is started in a new
// user and mount namespace (unprivileged where the kernel allows it),
// bind-mounts each protected path over itself read-only and covers each
// denied path (an empty read-only tmpfs over a directory, /dev/null over a
// file), then confines itself with Landlock, which also forbids the
// command to unmount any of it. See RATIONALE.md.

// namespacesWork reports, once per process, whether commands can get a
// user and mount namespace of their own: the helper beside pi creates
// them itself (selfNSWorks), or else pi can start a process in them
// (mountNSWorks, a full fork of pi to find out).
var namespacesWork = sync.OnceValue(func() bool {
	if exe, err := os.Executable(); err == nil {
		if h := helperExe(exe); h != exe && selfNSWorks(h) {
			return true
		}
	}
	return mountNSWorks()
})

// selfNSProbes holds, per helper program, whether it creates its own
// namespaces (a func() bool made by sync.OnceValue).
var selfNSProbes sync.Map

// selfNSWorks reports, once per process and helper, whether the helper
// creates its own user and mount namespace when started with
// [confine.SelfNSArg]: it is cmd/pi-sandbox linked with its entry point
// and the kernel lets it. One run of the helper finds out; a helper
// without the entry point refuses, and pi starts it in namespaces it
// creates itself, as before.
func selfNSWorks(helper string) bool {
	f, ok := selfNSProbes.Load(helper)
	if !ok {
		f, _ = selfNSProbes.LoadOrStore(helper, sync.OnceValue(func() bool {
			cmd := exec.Command(helper, confine.SelfNSArg, confine.ProbeArg, strconv.Itoa(os.Getuid()), strconv.Itoa(os.Getgid()))
			return cmd.Run() == nil
		}))
	}
	return f.(func() bool)()
}

// mountNSWorks reports, once per process, whether this kernel lets pi
// start a process in a new user and mount namespace.
var mountNSWorks = sync.OnceValue(func() bool {
	exe, err := exec.LookPath("true")
	if err != nil {
		return false
	}
	cmd := exec.Command(exe)
	setNamespaces(cmd, false)
	return cmd.Run() == nil
})

// hostMountNS names pi's mount namespace, read once.
var hostMountNS = sync.OnceValue(func() string {
	ns, _ := os.Readlink("/proc/self/ns/mnt")
	return ns
})

// setNamespaces starts cmd in a new user and mount namespace in which pi's
// user and group map to themselves, so files keep their owners.
// With netns, also in a new network namespace (allow-list mode).
func setNamespaces(cmd *exec.Cmd, netns bool) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	uid, gid := os.Getuid(), os.Getgid()
	cmd.SysProcAttr.Cloneflags |= syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS
	if netns {
		cmd.SysProcAttr.Cloneflags |= syscall.CLONE_NEWNET
	}
	cmd.SysProcAttr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
	cmd.SysProcAttr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
	cmd.SysProcAttr.GidMappingsEnableSetgroups = false
	if uid != 0 {
		// A user other than root keeps no capability across the helper's
		// execve, even in the namespace it owns, and could not mount.
		// CAP_SYS_ADMIN as an ambient capability survives the execve;
		// the helper drops it (dropCaps) before it confines itself, so
		// the command never has it.
		cmd.SysProcAttr.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN}
		if netns {
			// To bring up loopback in the new network namespace.
			cmd.SysProcAttr.AmbientCaps = append(cmd.SysProcAttr.AmbientCaps, unix.CAP_NET_ADMIN)
		}
	}
}
