// Package ui is pi's interactive session: a terminal UI on Bubble Tea
// over one core/runtime session. Finished messages are rendered once (by
// package render) and printed into the terminal's scrollback (inline mode)
// or kept as cached blocks (full-screen mode); only the live part — the
// streaming reply, running tools, the editor and the footer — is redrawn,
// and runtime events are coalesced so a fast stream costs one frame per
// batch, not one per token.
package ui
