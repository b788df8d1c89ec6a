// Package permission decides whether a tool call may run: the allow, ask
// and deny rules of settings ("permissions"), checked in the order deny,
// ask, allow, then a default; and the question a person answers when a
// rule says ask.
//
// Rules are "tool" or "tool(pattern)". Bash patterns match the words of
// every simple command in the script, found with a real shell parser
// (mvdan.cc/sh) through pipelines, lists, subshells, command substitution
// and wrappers such as env and sudo. Patterns of the file tools match
// resolved paths with doublestar globs. docs/sandbox.md describes the
// syntax for users.
package permission
