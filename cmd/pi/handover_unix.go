//go:build unix

package main

import (
	"fmt"
	"syscall"
)

// execUI replaces this process with the program at path, given args (after
// argv[0]) and env. It returns only when the exec fails.
func execUI(path string, args, env []string) error {
	err := syscall.Exec(path, append([]string{path}, args...), env)
	return fmt.Errorf("start the interactive session in %s: %w", path, err)
}
