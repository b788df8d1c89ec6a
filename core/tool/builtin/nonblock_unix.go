//go:build !windows

package builtin

import "syscall"

// nonblock keeps opening a FIFO from waiting for its other end.
const nonblock = syscall.O_NONBLOCK
