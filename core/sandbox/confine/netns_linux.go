package confine

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// In allow-list mode the helper runs in a network namespace of its own
// (see package sandbox, netns_linux.go, for why and for pi's side): it
// brings up loopback there, listens on the proxy's port and hands the
// listening socket and a pidfd of itself to pi, whose proxy serves it.

// handOverListener runs in the helper, in its new network namespace,
// with the namespace's capabilities: it brings up loopback, listens on
// 127.0.0.1:port and sends the listener and a pidfd of itself to pi.
func handOverListener(s Spec) error {
	if self, err := os.Readlink("/proc/self/ns/net"); err != nil || s.HostNetNS == "" || self == s.HostNetNS {
		return errors.New("the helper is not in a network namespace of its own")
	}
	if err := loopbackUp(); err != nil {
		return fmt.Errorf("bring up loopback: %w", err)
	}
	ln, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(ln)
	if err := unix.Bind(ln, &unix.SockaddrInet4{Port: s.ProxyPort, Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		return fmt.Errorf("listen on the proxy's port: %w", err)
	}
	if err := unix.Listen(ln, 128); err != nil {
		return err
	}
	pidfd, err := unix.PidfdOpen(os.Getpid(), 0)
	if err != nil {
		return fmt.Errorf("pidfd: %w", err)
	}
	defer unix.Close(pidfd)
	c, err := unix.Socket(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(c)
	if err := unix.Connect(c, &unix.SockaddrUnix{Name: s.HandOver}); err != nil {
		return fmt.Errorf("reach pi to hand over the listener: %w", err)
	}
	if err := unix.Sendmsg(c, []byte{1}, unix.UnixRights(ln, pidfd), nil, 0); err != nil {
		return fmt.Errorf("hand the listener to pi: %w", err)
	}
	// Wait for pi's answer: the command must not start before pi
	// serves the listener (a connection would wait, but a refused one
	// would not).
	if _, err := unix.Read(c, make([]byte, 1)); err != nil {
		return fmt.Errorf("hand the listener to pi: %w", err)
	}
	return nil
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
