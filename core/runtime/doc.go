// Package runtime keeps one session alive for every mode that drives pi:
// print and JSON modes, RPC mode and the terminal UI. It wraps a
// session.Runner with what a person or a client needs while the agent
// works: a prompt that runs in the background, a steering queue (delivered
// after the current tool batch) and a follow-up queue (delivered when the
// agent would stop), abort, a model switch, a new or resumed transcript,
// the session's state and messages, and one event stream with any number of
// subscribers.
package runtime
