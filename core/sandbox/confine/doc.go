// Package confine is the helper side of pi's sandbox: given a [Spec] it
// confines the calling process (its own mount and network namespace set-up,
// no controlling terminal, no_new_privs, Landlock and a seccomp filter) and
// executes the command. It runs once per sandboxed bash call, in the small
// helper binary cmd/pi-sandbox (or in pi re-executed), so it imports as
// little as it can: no net, no settings, nothing of the harness. Every
// package it links is initialised again on every call. The policy itself
// (what may be written, read and reached) is decided in package sandbox,
// which writes the Spec.
package confine
