package hostile

import (
	"fmt"
	"io"
)

// InjectTTY is the argument that makes a test binary try to type a line
// into a terminal (see [Main]).
const InjectTTY = "__hostile-inject-tty"

// OpenSockets is the argument that makes a test binary try to create a
// socket of each address family given (numbers), printing "family N: ok"
// or the error.
const OpenSockets = "__hostile-open-sockets"

// NetProbe is the argument that makes a test binary try to reach the
// network around a proxy: pairs of "tcp|udp|fastopen IP:PORT", printing
// "KIND ADDR: ok" or the error for each.
const NetProbe = "__hostile-net-probe"

// Main runs the hostile program args[0] names with the rest as its
// arguments and returns its exit status; ok is false when args name none.
func Main(args []string, stdout io.Writer) (status int, ok bool) {
	if len(args) == 0 {
		return 0, false
	}
	switch args[0] {
	case InjectTTY:
		return injectTTY(args[1:], stdout), true
	case OpenSockets:
		return openSockets(args[1:], stdout), true
	case NetProbe:
		return netProbe(args[1:], stdout), true
	}
	return 0, false
}

// Typed is what the terminal program prints for a target it typed into.
const Typed = "typed"

func report(w io.Writer, target string, err error) {
	if err != nil {
		fmt.Fprintf(w, "%s: %v\n", target, err)
		return
	}
	fmt.Fprintf(w, "%s: %s\n", target, Typed)
}
