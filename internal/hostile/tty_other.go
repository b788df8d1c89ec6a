//go:build !linux

package hostile

import (
	"fmt"
	"io"
)

func injectTTY(_ []string, w io.Writer) int {
	fmt.Fprintln(w, "not implemented on this system")
	return 0
}

func openSockets(_ []string, w io.Writer) int {
	fmt.Fprintln(w, "not implemented on this system")
	return 0
}
