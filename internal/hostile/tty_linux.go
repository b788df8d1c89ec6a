package hostile

import (
	"fmt"
	"io"

	"golang.org/x/sys/unix"
)

// Line is what the terminal program tries to type.
const Line = "echo INJECTED-BY-A-CONFINED-COMMAND\n"

// injectTTY tries to push Line into a terminal's input with TIOCSTI
// through /dev/tty, each path in paths and descriptors 0 to 2, printing
// one "target: result" line each. It always exits 0: the output says what
// happened.
func injectTTY(paths []string, w io.Writer) int {
	try := func(name string, fd int) {
		for i := 0; i < len(Line); i++ {
			if err := unix.IoctlSetPointerInt(fd, unix.TIOCSTI, int(Line[i])); err != nil {
				report(w, name, err)
				return
			}
		}
		report(w, name, nil)
	}
	for _, p := range append([]string{"/dev/tty"}, paths...) {
		fd, err := unix.Open(p, unix.O_RDONLY|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
		if err != nil {
			report(w, p, err)
			continue
		}
		try(p, fd)
		unix.Close(fd)
	}
	for fd := 0; fd < 3; fd++ {
		try(fmt.Sprint("fd ", fd), fd)
	}
	return 0
}

// openSockets creates (and closes) a socket of each family in families.
func openSockets(families []string, w io.Writer) int {
	for _, f := range families {
		var n int
		if _, err := fmt.Sscan(f, &n); err != nil {
			fmt.Fprintf(w, "family %s: not a number\n", f)
			continue
		}
		typ := unix.SOCK_STREAM
		if n == unix.AF_NETLINK || n == unix.AF_PACKET {
			typ = unix.SOCK_RAW
		}
		fd, err := unix.Socket(n, typ, 0)
		if err != nil {
			fmt.Fprintf(w, "family %d: %v\n", n, err)
			continue
		}
		unix.Close(fd)
		fmt.Fprintf(w, "family %d: ok\n", n)
	}
	return 0
}
