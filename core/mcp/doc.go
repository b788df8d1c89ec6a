// Package mcp is pi's client for Model Context Protocol servers, on the
// official Go SDK (github.com/modelcontextprotocol/go-sdk).
//
// Servers are configured in the established harness's mcp.json format
// ([Load]: the agent dir's file, then a trusted project's .pi/mcp.json;
// [AddServer] and [RemoveServer] edit one). A [Manager] connects the
// enabled servers in the background and in parallel, each with its own
// deadline, and turns their tools into pi tools named
// mcp__<server>__<tool> ([ToolName]) that run through the same registry,
// permission rules and extension hooks as the built-in ones. Stdio servers
// are started by a caller-supplied launcher, which pi uses to confine them
// with the sandbox helper under a per-server policy ([ServerPolicy]).
package mcp
