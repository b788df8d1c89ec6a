// Package permission decides whether a tool call may run: the allow, ask
// and deny rules of settings ("permissions"), checked in the order deny,
// ask, allow, then a default; and the question a person answers when a
// rule says ask.
//
// Rules are "tool" or "tool(pattern)". Bash patterns match the simple
// commands of the script and the forms they run, found by package shellcmd
// (through pipelines, wrappers, nested shells, git aliases). Deny and ask
// rules apply when they could match: what cannot be known before the
// script runs matches them (fail closed); allow rules apply only to what is
// written. Patterns of the file tools match resolved paths with doublestar
// globs. docs/sandbox.md describes the syntax for users.
package permission
