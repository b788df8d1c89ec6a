// Package provider turns a neutral chat request (messages with tool calls,
// tool results and images, plus tool declarations) into the wire format of a
// model API (OpenAI chat completions, Anthropic messages), streams the reply
// over HTTP as the established harness's delta events with retries on
// transient failures, and loads the models.json route table.
package provider
