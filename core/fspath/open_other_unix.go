//go:build unix && !linux

package fspath

import (
	"errors"

	"golang.org/x/sys/unix"
)

// pathFlag opens the intermediate directories of a walk (no O_PATH here).
const pathFlag = unix.O_RDONLY

var errNoOpenat2 = errors.New("openat2 is not available")

func openat2(string, int, uint32) (int, error) { return -1, errNoOpenat2 }
