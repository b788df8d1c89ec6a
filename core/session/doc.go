// Package session runs pi: it turns loaded resources and extension hooks
// into the prompt of each request, funnels user input, keeps the JSONL
// transcript and projects it into provider requests.
package session
