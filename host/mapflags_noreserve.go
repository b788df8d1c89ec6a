//go:build linux || darwin || dragonfly || netbsd || openbsd || solaris

package host

import "golang.org/x/sys/unix"

// mapNoReserve asks the kernel not to reserve swap for a guest memory
// reservation: it is sized at the extension's memory limit, and only the
// pages the guest touches are ever backed.
const mapNoReserve = unix.MAP_NORESERVE
