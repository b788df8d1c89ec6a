//go:build !linux

package hostile

import (
	"fmt"
	"io"
)

func netProbe(_ []string, w io.Writer) int {
	fmt.Fprintln(w, "not implemented on this system")
	return 0
}
