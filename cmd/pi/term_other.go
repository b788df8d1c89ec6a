//go:build !linux

package main

import "os"

// isTerminal falls back to "is a character device" where we do not ask the
// terminal driver.
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
