//go:build !linux

package sandbox

import (
	"fmt"
	"io"
)

// RunHelper is the body of pi's hidden helper command; confinement is
// implemented on Linux only, so elsewhere it refuses (exit status 126).
func RunHelper(args []string, stderr io.Writer) int {
	fmt.Fprintln(stderr, "pi sandbox: command confinement is implemented on Linux only")
	return 126
}
