//go:build !linux

package confine

import (
	"fmt"
	"io"
)

// Run is the body of pi's hidden helper command; confinement is
// implemented on Linux only, so elsewhere it refuses (exit status 126).
func Run(args []string, stderr io.Writer) int {
	fmt.Fprintln(stderr, "pi sandbox: command confinement is implemented on Linux only")
	return 126
}

// RunFromInit is [Run] for a program's init function; it refuses too.
func RunFromInit(args []string, stderr io.Writer) int { return Run(args, stderr) }

// RunSelfNS is [Run] for a helper started with [SelfNSArg]; it refuses too.
func RunSelfNS(args []string, _ Entry, stderr io.Writer) int { return Run(args, stderr) }
