// Package tool defines what a tool is to pi: one self-describing value
// carrying its name, description, JSON Schema (kept as exact bytes so requests
// replay byte for byte), the prompt snippet and guidelines it contributes
// while declared, how it may be scheduled, permission hints, where it comes
// from, and the function that runs it.
//
// Around that value the package keeps what every tool source shares: a
// Registry in registration order with the command line's tool selection,
// argument preparation (legacy shapes folded, validated against the schema
// with light coercion, errors worded for the model), a per-path write lock,
// and head/tail truncation with the shared limits.
//
// The built-in tools live in the builtin subpackage; extension tools are
// adapted onto the same value by the host.
package tool
