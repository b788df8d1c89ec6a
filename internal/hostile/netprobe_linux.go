package hostile

import (
	"fmt"
	"io"
	"net/netip"

	"golang.org/x/sys/unix"
)

// netProbe tries each "KIND ADDR" pair of args (ADDR is IP:PORT):
//   - tcp: connect a TCP socket to ADDR (what a program that ignores the
//     proxy does);
//   - udp: send a datagram to ADDR (DNS, or any UDP way out);
//   - fastopen: sendto with MSG_FASTOPEN, which connects without connect.
//
// It prints "KIND ADDR: ok" or "KIND ADDR: ERROR" for each and exits 0.
func netProbe(args []string, w io.Writer) int {
	for i := 0; i+1 < len(args); i += 2 {
		kind, addr := args[i], args[i+1]
		fmt.Fprintf(w, "%s %s: %s\n", kind, addr, result(probe(kind, addr)))
	}
	return 0
}

func result(err error) string {
	if err != nil {
		return err.Error()
	}
	return "ok"
}

func probe(kind, addr string) error {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		return err
	}
	family, sa := unix.AF_INET6, unix.Sockaddr(&unix.SockaddrInet6{Port: int(ap.Port()), Addr: ap.Addr().As16()})
	if ap.Addr().Is4() {
		family, sa = unix.AF_INET, &unix.SockaddrInet4{Port: int(ap.Port()), Addr: ap.Addr().As4()}
	}
	typ := unix.SOCK_STREAM
	if kind == "udp" {
		typ = unix.SOCK_DGRAM
	}
	fd, err := unix.Socket(family, typ|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("socket: %w", err)
	}
	defer unix.Close(fd)
	switch kind {
	case "tcp":
		if err := unix.Connect(fd, sa); err != nil {
			return fmt.Errorf("connect: %w", err)
		}
		_, err = unix.Write(fd, []byte("escaped\n"))
	case "udp":
		err = unix.Sendto(fd, []byte("escaped\n"), 0, sa)
	case "fastopen":
		err = unix.Sendto(fd, []byte("escaped\n"), unix.MSG_FASTOPEN, sa)
	default:
		return fmt.Errorf("unknown probe %q", kind)
	}
	return err
}
