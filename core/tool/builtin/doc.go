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
//
// Expected failures (a missing file, a refused path, a failing command, an
// edit that does not match) are results with IsError set, worded for the
// model. When the context is cancelled, bash kills its process group and
// returns an error result holding the output so far and "Command aborted";
// the other tools stop at their next check and return the context's error.
//
// Hand-written parts and why: the edit matcher and its diff (the harness's
// exact matching rules, and a diff of only the changed lines so a large file
// costs what its edit costs), grep (no rg; files are read and screened on a
// few workers but taken in walk order so output is deterministic). .gitignore
// rules come from core/resources, globs from doublestar, NFKC from x/text.
package builtin
