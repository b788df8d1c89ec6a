// Package agent is pi's loop: it streams an assistant message from a model,
// runs the tool calls that message makes (in parallel where the tools allow,
// results in call order), feeds the results back and goes on until the model
// stops calling tools. It emits the established harness's events
// (agent_start, turn_start, message_*, tool_execution_*, turn_end,
// agent_end) and does no I/O of its own: the model, the tools, the hooks
// that gate calls and the recorder are interfaces its caller supplies.
package agent
