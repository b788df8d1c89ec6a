// Package replay calls one hook of a handler with an event written as
// JSON, the way `pi ext test` exercises an extension against scripted
// events. It knows every hook of abi.Hooks, so a WebAssembly extension and
// a TypeScript one (any hooks.Handler that also implements the optional
// handler interfaces of the hooks it declares) are tested the same way.
package replay
