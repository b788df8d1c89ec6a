package sandbox

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"time"

	"github.com/landlock-lsm/go-landlock/landlock"
	"golang.org/x/sys/unix"
)

// In allow-list mode, where the kernel lets pi start commands in a user
// namespace, the helper also gets a network namespace of its own: only a
// loopback interface, on which a forwarder listens at the proxy's port
// and passes each connection to pi's proxy through a Unix socket. Landlock
// restricts TCP by port only, not by address, so without it a command
// could reach a server listening on the proxy's port number at any other
// address; in the namespace there is no other address to reach.

// forwardArg, after [HelperArg], makes the helper binary act as the
// forwarder: pi __sandbox-exec --forward SOCKET, listener on fd 3.
const forwardArg = "--forward"

// hostNetNS names pi's network namespace (/proc/self/ns/net).
func hostNetNS() string {
	ns, _ := os.Readlink("/proc/self/ns/net")
	return ns
}

// netnsForwarder brings up loopback in the helper's new network namespace,
// listens on 127.0.0.1:port there and starts the forwarder to socket. It
// runs after the mounts, with the namespace's capabilities, and returns
// the forwarder's process (left running: it exits with the command).
func netnsForwarder(s spec) error {
	if self, err := os.Readlink("/proc/self/ns/net"); err != nil || s.HostNetNS == "" || self == s.HostNetNS {
		return errors.New("the helper is not in a network namespace of its own")
	}
	if err := loopbackUp(); err != nil {
		return fmt.Errorf("bring up loopback: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(s.ProxyPort))
	if err != nil {
		return err
	}
	defer ln.Close()
	f, err := ln.(*net.TCPListener).File()
	if err != nil {
		return err
	}
	defer f.Close()
	if err := dropCaps(); err != nil { // before starting anything
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(self, HelperArg, forwardArg, s.ProxySocket)
	cmd.ExtraFiles = []*os.File{f} // fd 3; stdio is /dev/null, so it holds no pipe of the command's
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start the forwarder: %w", err)
	}
	// Not waited for: the helper executes the command next, and the
	// forwarder exits when that process does (see forward).
	return cmd.Process.Release()
}

// loopbackUp sets IFF_UP on lo.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}

// forward is the forwarder: it accepts on fd 3 and copies each connection
// to and from the Unix socket path. It confines itself first (Landlock
// with no rules: no file access, no TCP), and exits when its parent, the
// command, has gone (it is then reparented).
func forward(args []string) error {
	if len(args) != 1 {
		return errors.New("usage: " + HelperArg + " " + forwardArg + " SOCKET")
	}
	path := args[0]
	ln, err := net.FileListener(os.NewFile(3, "listener"))
	if err != nil {
		return err
	}
	if err := landlock.V5.BestEffort().Restrict(); err != nil {
		return fmt.Errorf("landlock: %w", err)
	}
	parent := os.Getppid()
	go func() {
		for range time.Tick(250 * time.Millisecond) {
			if os.Getppid() != parent {
				os.Exit(0)
			}
		}
	}()
	for {
		c, err := ln.Accept()
		if err != nil {
			return err
		}
		go func() {
			up, err := net.Dial("unix", path)
			if err != nil {
				c.Close()
				return
			}
			done := make(chan struct{})
			go func() {
				_, _ = io.Copy(up, c)
				closeWrite(up)
				close(done)
			}()
			_, _ = io.Copy(c, up)
			closeWrite(c)
			<-done
			c.Close()
			up.Close()
		}()
	}
}
