//go:build unix

package resources

import "syscall"

// openNonblock keeps open(2) from waiting for a writer when the path is a
// FIFO; it changes nothing for regular files.
const openNonblock = syscall.O_NONBLOCK
