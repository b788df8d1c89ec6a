package main

import (
	"os"

	"golang.org/x/term"
)

// isTerminal reports whether f is a terminal, asking the terminal driver (a
// character device such as /dev/null is not one). pi only asks questions on
// a terminal, so a wrong yes would make a script hang on a prompt.
func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }
