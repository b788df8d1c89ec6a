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

// The entry point, after a successful unshare or not, saves the process's
// CPU affinity in cpuMask (cpuMaskLen bytes, as sched_getaffinity wrote
// them; 0 when it did not) and pins the process to the lowest CPU in it,
// with the mask it builds in cpuOne; pinResult is what sched_setaffinity
// returned (confine.EntryNotRun when it was not called). On one CPU the
// Go runtime runs with GOMAXPROCS 1 and starts no threads to run its
// background work alongside init: two threads fewer to create and to end
// at the execve, about 30 page faults and a tenth of the helper's CPU.
// confine puts the affinity back before the command runs.
var (
	cpuMask, cpuOne [128]byte // 1,024 CPUs, as the kernel's default cpumask
	cpuMaskLen      int64
	pinResult       int64 = confine.EntryNotRun
)

// entryState is what the entry point did, for confine.
func entryState() confine.Entry {
	e := confine.Entry{Unshared: unshareResult}
	if pinResult == 0 && cpuMaskLen > 0 && cpuMaskLen <= int64(len(cpuMask)) {
		e.Affinity = cpuMask[:cpuMaskLen]
	}
	return e
}
