// Package scripted is a scripted language model on loopback for tests and
// benchmarks: it answers each request with the next reply of a script —
// text, thinking and tool calls — streamed in small fragments in any of
// three wire shapes (OpenAI chat completions, OpenAI's Responses API or
// Anthropic messages), and keeps every request body so a test can check
// what the harness sent.
//
// It speaks only the wire formats, not pi's types, so the same script drives
// pi and the established harness side by side.
package scripted
