//go:build windows

package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
)

// execUI runs the program at path with args and env on pi's own standard
// streams and exits with its code: Windows has no exec. Ctrl+C reaches
// both processes, as they share the console; pi leaves it to the child.
func execUI(path string, args, env []string) error {
	cmd := exec.Command(path, args...)
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	signal.Ignore(os.Interrupt)
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		os.Exit(exit.ExitCode())
	}
	if err != nil {
		return fmt.Errorf("start the interactive session in %s: %w", path, err)
	}
	os.Exit(0)
	return nil
}
