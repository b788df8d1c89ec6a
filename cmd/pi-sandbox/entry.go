package main

import "github.com/piwasm/pi/core/sandbox/confine"

// The helper's entry point (entry_linux_amd64.s, entry_linux_arm64.s; the
// Makefile links with -E pisandbox_rt0 where there is one) runs before the
// Go runtime, while the process still has one thread: the only moment the
// kernel lets it unshare its user and mount namespace. When the first
// argument is exactly confine.SelfNSArg it calls unshare(CLONE_NEWUSER |
// CLONE_NEWNS) and stores the result in unshareResult; then, whatever the
// argument, it jumps to the runtime's usual entry. See confine.RunSelfNS
// and RATIONALE.md.

// selfNSArg is the argument the entry point compares with argv[1]: a
// string variable, initialised statically, so the assembly reads it
// before any Go code has run.
var selfNSArg = confine.SelfNSArg

// unshareResult is what the entry point's unshare returned (0, or minus
// the error number), or confine.EntryNotRun when it did not call it: a
// helper linked without the entry point, or started with another first
// argument.
var unshareResult int64 = confine.EntryNotRun
