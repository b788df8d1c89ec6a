// Command pi is the pi agent harness: it prints and explains the system
// prompt, expands input, lists resources, manages WASM extensions, and runs
// a prompt against a model.
package main

import (
	"strings"

	"context"
	"errors"
	"fmt"
	"github.com/piwasm/pi/core/sandbox"
	"github.com/spf13/pflag"
	"io"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	// Grows the main goroutine's stack during package initialisation,
	// before the deep initialisers and main's own calls would grow it
	// step by step (see the package's doc).
	_ "github.com/piwasm/pi/internal/stackreserve"
)

// Exit codes.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
	// exitInterrupted is the shell's code for a process ended by SIGINT.
	exitInterrupted = 130
)

// usageError marks a problem with how pi was called (exit code 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// app carries the process environment so commands never read globals.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	home           string
	wd             string
	isTerminal     bool
	// argv is the command line after the program's name, as given, for
	// handing an interactive session over to pi-ui (handOverUI).
	argv []string
	// outTerminal reports whether stdout is a terminal: text from files,
	// extensions and providers is then escaped for display (see display).
	outTerminal bool
	// exitSweep, set by main, receives the run's last sandbox sweep
	// (Policy.SweepAtExit), which main calls once the processes commands
	// left running are killed. Nil outside main (tests run the app in
	// process and kill nothing).
	exitSweep *atomic.Pointer[func() string]
}

// sweepAtExit runs the run's last sandbox sweep, if any, and tells the
// user what it moved.
func (a *app) sweepAtExit() {
	if a == nil || a.exitSweep == nil {
		return
	}
	if f := a.exitSweep.Load(); f != nil {
		if n := (*f)(); n != "" {
			fmt.Fprintf(a.stderr, "pi: %s\n", n)
		}
	}
}

func main() {
	// The confining helper the bash tool starts: handled before anything
	// else so it stays small and never reads flags or settings.
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperArg {
		os.Exit(sandbox.RunHelper(os.Args[2:], os.Stderr))
	}
	if len(os.Args) > 1 && os.Args[1] == sandbox.SpecArg { // bench/side.sh
		if err := sandbox.PrintSpec(os.Args[2:], os.Stdout); err != nil {
			fmt.Fprintf(os.Stderr, "pi: %v\n", err)
			os.Exit(1)
		}
		return
	}
	if err := acceptHandOver(os.Getenv, os.Unsetenv); err != nil {
		fmt.Fprintf(os.Stderr, "pi: %v\n", err)
		os.Exit(exitFailure)
	}
	// What commands leave running (even in a session of their own) stays
	// pi's, and goes when pi exits. Subcommands run no model commands and
	// may start programs meant to outlive pi (a browser to sign in).
	agentRun := len(os.Args) < 2 || !isSubcommandWord(os.Args[1])
	if agentRun {
		sandbox.AdoptOrphans()
	}
	home, _ := os.UserHomeDir()
	wd, _ := os.Getwd()
	a := &app{
		stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr,
		getenv: os.Getenv, home: home, wd: wd, argv: os.Args[1:],
		isTerminal: isTerminal(os.Stdin), outTerminal: isTerminal(os.Stdout),
		exitSweep: new(atomic.Pointer[func() string]),
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigc := make(chan os.Signal, 1)
	signal.Notify(sigc, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	var received atomic.Value
	go func() {
		s := <-sigc
		received.Store(s)
		cancel()
		exitAfterInterrupt(s, agentRun, a)
	}()
	resolveSystemNames()
	code := a.run(ctx, os.Args[1:])
	if s, ok := received.Load().(os.Signal); ok {
		code = signalExit(s)
	}
	if agentRun {
		sandbox.KillDescendants()
		a.sweepAtExit()
	}
	os.Exit(code)
}

// isSubcommandWord reports whether word names a subcommand (pi sandbox,
// pi mcp, …) rather than starting a run.
func isSubcommandWord(word string) bool {
	_, ok := lookupSubcommand(word)
	return ok
}

// signalExit is the exit code after a signal, as the established harness
// and shells report it: 128 + the signal number.
func signalExit(s os.Signal) int {
	switch s {
	case syscall.SIGTERM:
		return 143
	case syscall.SIGHUP:
		return 129
	}
	return exitInterrupted
}

func (a *app) run(ctx context.Context, args []string) int {
	args = normalizeArgs(args)
	if len(args) == 0 && !(a.isTerminal && a.outTerminal) {
		writeMainHelp(a.stderr)
		return exitUsage
	}
	if len(args) == 0 {
		// A person at a terminal: the interactive session.
		return a.exitCode(a.cmdRun(ctx, args))
	}
	if args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		a.writeHelp(preParse(args[1:]))
		return exitOK
	}
	if c, ok := lookupSubcommand(args[0]); ok {
		return a.exitCode(c.run(a, ctx, args[1:]))
	}
	if near := typoOf(args[0]); near != "" {
		return a.exitCode(usagef("%q is not a command; did you mean pi %s? (to send %q to the model as a message: pi -- %s)", args[0], near, args[0], strings.Join(args, " ")))
	}
	err := a.cmdRun(ctx, args)
	return a.exitCode(err)
}

func (a *app) exitCode(err error) int {
	if err == nil {
		return exitOK
	}
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(a.stderr, "pi: %s\n", errorText(err))
		return exitUsage
	}
	if errors.Is(err, errHelp) {
		return exitOK
	}
	fmt.Fprintf(a.stderr, "pi: %s\n", errorText(err))
	return exitFailure
}

// normalizeArgs rewrites the two-letter short flag -na, which pflag cannot
// express, into its long form; a -na that is the value of the flag before it
// (pi -p -na) is left alone.
func normalizeArgs(args []string) []string {
	out := make([]string, 0, len(args))
	for i, s := range args {
		if s == "--" {
			return append(out, args[i:]...)
		}
		if long, ok := multiLetterShort[s]; ok && (i == 0 || !takesValue(args[i-1])) {
			s = long
		}
		out = append(out, s)
	}
	return out
}

// multiLetterShort are the established harness's short forms of more than
// one letter, which pflag cannot express.
var multiLetterShort = map[string]string{
	"-na":  "--no-approve",
	"-nt":  "--no-tools",
	"-nbt": "--no-builtin-tools",
	"-xt":  "--exclude-tools",
	"-ne":  "--no-extensions",
	"-nc":  "--no-context-files",
	"-ns":  "--no-skills",
	"-np":  "--no-prompt-templates",
}

// takesValue reports whether arg is a flag that consumes the next argument
// as its value. Bool flags and flags written with "=" do not.
func takesValue(arg string) bool {
	if !strings.HasPrefix(arg, "-") || strings.Contains(arg, "=") || arg == "-" {
		return false
	}
	fs := pflag.NewFlagSet("probe", pflag.ContinueOnError)
	var c common
	c.register(fs)
	var r runFlags
	r.register(fs)
	fs.String("input", "", "") // pi prompt
	fs.Int("request", 0, "")   // pi session show
	name := strings.TrimLeft(arg, "-")
	var f *pflag.Flag
	if strings.HasPrefix(arg, "--") {
		f = fs.Lookup(name)
	} else if len(name) == 1 {
		f = fs.ShorthandLookup(name)
	}
	return f != nil && f.Value.Type() != "bool"
}

// interruptGrace is how long pi may take to wind down after Ctrl-C.
const interruptGrace = 2 * time.Second

// exitAfterInterrupt makes Ctrl-C end pi at any point: the first one
// cancels ctx, which every command and guest call heeds, and restores the
// default handling so that a second one kills pi at once; if pi is still
// running after interruptGrace (stuck in something that cannot be
// interrupted, such as compiling a module), it exits anyway.
func exitAfterInterrupt(s os.Signal, agentRun bool, a *app) {
	signal.Reset(os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	time.Sleep(interruptGrace)
	fmt.Fprintln(os.Stderr, "pi: interrupted")
	if agentRun {
		sandbox.KillDescendants()
		a.sweepAtExit()
	}
	os.Exit(signalExit(s))
}
