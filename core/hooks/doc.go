// Package hooks names the extension hooks and dispatches them to handlers in
// load order with their rules (chained, waterfall, first-handled-wins) and
// each handler's failure policy; WASM extensions and in-process Go handlers
// implement the same Handler interface.
package hooks
