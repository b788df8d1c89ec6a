// Package host runs pi extensions: WebAssembly modules that take part in
// prompt assembly inside a sandbox. It loads and verifies packages (a
// directory holding extension.yaml and a .wasm module), compiles modules
// once per SHA-256 into an on-disk cache, instantiates them with the
// capabilities the user granted and the limits the manifest asks for (within
// host caps), calls their hook exports and serves the host functions of
// ABI v1 (package abi).
//
// A typical session:
//
//	rt, err := host.NewRuntime(ctx, host.Config{AgentDir: agentDir, ProjectRoot: root, Log: logf})
//	defer rt.Close(ctx)
//	store, _ := host.OpenGrantStore(agentDir)
//	exts, diags := rt.Load(ctx, dirs, store.Grants())
//	for _, e := range exts {
//		if e.Handles(abi.HookBeforeAgentStart) {
//			res, err := e.BeforeAgentStart(ctx, ev, fetch)
//			…
//		}
//	}
//
// # Sandbox
//
// Deny by default. A guest sees no preopened directories, no environment
// variables, a fixed wall clock, a fake monotonic clock (advancing 1 ms per
// reading) and a deterministic random source, unless the manifest requests
// and the user grants the capability. Network access goes through the
// Extism kernel's http_request, restricted to the granted hosts and ports
// on every round trip, redirects included. Files are read only through
// pi_read_file, within the granted globs, opened under the project root.
//
// # Limits
//
// Every call runs under a deadline (the manifest's timeoutMs, default
// 500 ms, capped at 5 s) with wazero's close-on-context-done: compiled
// guest code cannot otherwise be interrupted, and a looping guest would
// block the whole process at its next garbage collection. Memory is capped
// per instance (default 64 MiB, cap 512 MiB) and output per call (default
// 1 MiB, cap 16 MiB). A call that times out, traps, exceeds a limit or
// returns a malformed envelope retires its instance; the next call gets a
// fresh one from the compiled module. An error the guest reports inside its
// envelope leaves the instance in service.
//
// # Notes
//
// The host drives wazero itself rather than through Extism's Go SDK, and
// implements Extism's kernel (extism:host/env) in Go (see defineKernel), so
// that guests built with any stock Extism PDK work unchanged. pi's direct
// host functions receive the calling module from wazero and copy payloads
// straight into and out of its linear memory (see defineHostFunctions), so
// that for a Go SDK guest a payload crosses the boundary in one copy.
package host
