// Package abi is the contract between the pi host and its WebAssembly
// extensions: the ABI version, the names of the exports a guest provides,
// the host functions it may import, and one Go definition of every payload
// that crosses the boundary.
//
// Both sides use this package: the host (package host) on the native
// platform and the guest SDK (package sdk-guest) under GOOS=wasip1. It
// therefore depends on nothing but the standard library.
//
// Payloads are JSON with camelCase keys. Every hook export writes an
// [Envelope]: either {"result": …} or {"error": "…"}. Hooks return edit
// operations ([Op]) that the host validates and applies, never whole copies
// of the prompt; large inputs are fetched on demand with the pi_fetch host
// function.
package abi
