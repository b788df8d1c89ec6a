package sandbox

import (
	"net"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
)

// In allow-list mode, where the kernel lets pi start commands in a user
// namespace, the helper also gets a network namespace of its own, with
// only a loopback interface. Landlock restricts TCP by port, not by
// address, so without it a command could reach a server listening on the
// proxy's port number at any other address; in the namespace there is no
// other address.
//
// The proxy reaches into the namespace without a process of its own
// there: the helper listens on 127.0.0.1:PORT inside it and hands the
// listening socket (and a pidfd of itself, which stays the command's
// process across its execve) to pi, through a Unix socket pi listens on
// in a private directory. A socket keeps the namespace it was made in, so
// pi's proxy accepts the command's connections on it directly, until the
// command's process exits. (Anything else that sends pi a listener this
// way, a command included, only gets the proxy served on it: the same
// proxy it can already reach.)

// hostNetNS names pi's network namespace (/proc/self/ns/net).
func hostNetNS() string {
	ns, _ := os.Readlink("/proc/self/ns/net")
	return ns
}

// handOverTimeout bounds the wait for a helper's message once it has
// connected.
const handOverTimeout = 30 * time.Second

// startHandOver listens for helpers' listeners on a Unix socket in a
// private directory (in XDG_RUNTIME_DIR when there is one, which commands
// cannot write, else the temp dir) and serves each one it receives.
func (x *netProxy) startHandOver() (path, dir string, err error) {
	dir, err = os.MkdirTemp(os.Getenv("XDG_RUNTIME_DIR"), "pi-netns-")
	if err != nil {
		return "", "", err
	}
	path = filepath.Join(dir, "s")
	l, err := net.ListenUnix("unixpacket", &net.UnixAddr{Name: path, Net: "unixpacket"})
	if err != nil {
		os.RemoveAll(dir)
		return "", "", err
	}
	x.handOverLn = l
	go func() {
		for {
			c, err := l.AcceptUnix()
			if err != nil {
				return
			}
			go x.receive(c)
		}
	}()
	return path, dir, nil
}

// receive takes one helper's listener and pidfd, answers, and serves the
// listener until the pidfd says the command's process has exited.
func (x *netProxy) receive(conn *net.UnixConn) {
	defer conn.Close()
	_ = conn.SetReadDeadline(time.Now().Add(handOverTimeout))
	oob := make([]byte, unix.CmsgSpace(2*4))
	_, oobn, _, _, err := conn.ReadMsgUnix(make([]byte, 1), oob)
	if err != nil {
		return
	}
	var fds []int
	if msgs, err := unix.ParseSocketControlMessage(oob[:oobn]); err == nil {
		for i := range msgs {
			if got, err := unix.ParseUnixRights(&msgs[i]); err == nil {
				fds = append(fds, got...)
			}
		}
	}
	if len(fds) != 2 {
		for _, fd := range fds {
			unix.Close(fd)
		}
		return
	}
	lf := os.NewFile(uintptr(fds[0]), "netns-listener")
	ln, err := net.FileListener(lf)
	lf.Close()
	if err != nil {
		unix.Close(fds[1])
		return
	}
	x.inNS.Add(1)
	go func() { _ = x.srv.Serve(ln) }()
	_, _ = conn.Write([]byte{1})
	waitExit(fds[1])
	ln.Close()
	x.inNS.Add(-1)
}

// waitExit blocks until the process of pidfd exits (the pidfd becomes
// readable), through the runtime's poller, and closes pidfd.
func waitExit(pidfd int) {
	if err := unix.SetNonblock(pidfd, true); err != nil {
		unix.Close(pidfd)
		return
	}
	f := os.NewFile(uintptr(pidfd), "pidfd")
	defer f.Close()
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	_ = rc.Read(func(fd uintptr) bool {
		n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, 0)
		return n > 0 || err != nil && err != unix.EINTR
	})
}
