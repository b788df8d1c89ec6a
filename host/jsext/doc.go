// Package jsext runs the established harness's extensions, TypeScript or
// JavaScript files written against its ExtensionAPI, inside pi's sandbox.
//
// An extension is a .ts/.js file, or a directory holding index.ts or
// index.js (or a package.json whose "pi" key lists extensions, which
// package loaders resolve to their entry files first). Load bundles it
// with esbuild into one script (cached by content hash under the agent
// directory), then evaluates that script in its own instance of QuickJS-ng
// compiled to WebAssembly (the embedded engine/quickjs.wasm), run by
// wazero like any other pi guest: a memory cap, a deadline on every call
// (close-on-context-done), and no files, processes, network or environment
// except through host calls that check the extension's grants.
//
// The engine's module is compiled once per process (and cached on disk by
// wazero); each extension gets one instance. Imports of the harness's own
// packages (@earendil-works/pi-coding-agent, pi-ai, pi-tui, and the older
// @mariozechner names), of typebox and of node: built-ins resolve to pi's
// shims (the shim/ directory), written for pi.
//
// A session:
//
//	rt, err := jsext.NewRuntime(ctx, jsext.Config{AgentDir: agentDir, ProjectRoot: root, UI: ui})
//	defer rt.Close(ctx)
//	if jsext.IsExtension(path) {
//		ext, diags, err := rt.Load(ctx, path, jsext.Options{Grant: g, HasGrant: ok})
//		// ext implements hooks.Handler, hooks.ToolHandler and
//		// hooks.SessionHandler; ext.Tools(cwd) are its registered tools.
//	}
//
// What the API maps onto: pi.on(event) handlers become pi's hooks, in
// load order and with the established harness's rules (tool_call: the first
// block wins; before_agent_start: each handler sees the prompt the one
// before it returned). registerTool, registerCommand, registerFlag,
// sendMessage, appendEntry and the ctx.ui dialogs are served by the host.
// What pi cannot honour (ctx.ui.custom, renderers, providers) returns what
// the established harness returns without a terminal, and the member is
// recorded: Extension.Unsupported lists it, and `pi ext list` shows it.
package jsext
