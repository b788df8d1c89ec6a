// Package provider turns a neutral chat request into the wire format of a model API (OpenAI chat completions, Anthropic messages), streams the reply over HTTP, and loads the models.json route table.
package provider
