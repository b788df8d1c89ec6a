// Package builtin holds pi's own tools — read, bash, edit, write, grep, find
// and ls — written in Go with no helper programs (no rg, no fd).
//
// Their names, parameter names, types, required lists and schema key order
// are those of the established harness, so the same model output drives
// both; every sentence the model reads is pi's own.
//
// Each tool reaches the outside world only through Env: a file system over
// resolved absolute paths, a Guard consulted with the resolved path before
// any read or write, and a Shell that builds the bash process. Tests swap in
// fakes; the sandbox wraps the Guard and the Shell.
package builtin
