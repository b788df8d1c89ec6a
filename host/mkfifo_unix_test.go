//go:build unix

package host

import "syscall"

// mkfifo makes a named pipe for the tests that check a FIFO never blocks pi.
func mkfifo(path string) error { return syscall.Mkfifo(path, 0o644) }
