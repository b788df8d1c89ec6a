package session

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/piwasm/pi/abi"
	"github.com/piwasm/pi/core/hooks"
	"github.com/piwasm/pi/core/prompt"
	"github.com/piwasm/pi/core/provider"
)

// applyContext runs the context hook on the conversation a request
// carries: the history's messages without the system prompt, in the
// session's form. When the hook returns a list, it is converted as the
// history is and the system messages of reqMsgs go back in their places;
// when it returns nil, reqMsgs is sent as it is (byte for byte, so a
// provider's prompt cache still matches).
func (r *Runner) applyContext(ctx context.Context, tr *Transcript, reqMsgs []provider.Message) ([]provider.Message, error) {
	if r.Context == nil && !r.Dispatcher.HasContextHooks() {
		return reqMsgs, nil
	}
	var conv []prompt.Message
	for _, n := range tr.history() {
		if n.Role == "system" {
			continue
		}
		if n.Msg != nil {
			conv = append(conv, *n.Msg)
		} else {
			conv = append(conv, prompt.Message{Role: n.Role, Content: prompt.TextContent(n.Content)})
		}
	}
	hook := r.Context
	if hook == nil {
		hook = dispatcherContext(r.Dispatcher)
	}
	if hook == nil {
		return reqMsgs, nil
	}
	repl, err := hook(ctx, conv)
	if err != nil || repl == nil {
		return reqMsgs, err
	}
	converted := make([]provider.Message, 0, len(repl))
	for _, m := range repl {
		if pm, ok := toProvider(m); ok {
			converted = append(converted, pm)
		}
	}
	return keepSystem(reqMsgs, converted), nil
}

// keepSystem merges conv into the places of orig's non-system messages:
// each system message of orig keeps its place among the first messages of
// the new list, and those the new list is too short to reach follow it.
// The system prompt is never the hook's to change or drop.
func keepSystem(orig, conv []provider.Message) []provider.Message {
	out := make([]provider.Message, 0, len(orig)+len(conv))
	next := 0
	for _, m := range orig {
		if m.Role == provider.RoleSystem {
			out = append(out, m)
			continue
		}
		if next < len(conv) {
			out = append(out, conv[next])
			next++
		}
	}
	return append(out, conv[next:]...)
}

// dispatcherContext runs the extensions' context hooks of d on the
// conversation (nil when d has none). Failures of skip extensions leave
// the list as it was (the dispatcher keeps their diagnostics); an abort
// extension's failure stops the request.
func dispatcherContext(d *hooks.Dispatcher) func(context.Context, []prompt.Message) ([]prompt.Message, error) {
	if !d.HasContextHooks() {
		return nil
	}
	return func(ctx context.Context, conv []prompt.Message) ([]prompt.Message, error) {
		ev := abi.ContextEvent{Messages: make([]json.RawMessage, 0, len(conv))}
		for _, m := range conv {
			b, err := json.Marshal(m)
			if err != nil {
				return nil, err
			}
			ev.Messages = append(ev.Messages, b)
		}
		out, changed, err := d.Context(ctx, ev)
		if err != nil || !changed {
			return nil, err
		}
		msgs := make([]prompt.Message, 0, len(out.Messages))
		for i, raw := range out.Messages {
			var m prompt.Message
			if err := json.Unmarshal(raw, &m); err != nil {
				return nil, fmt.Errorf("context hook: message %d: %w", i, err)
			}
			msgs = append(msgs, m)
		}
		return msgs, nil
	}
}

// providerPatch runs the extensions' before_provider_request hooks on a
// request body (the API key travels in a header, never in it).
func providerPatch(d *hooks.Dispatcher, route provider.Route) func(context.Context, []byte) ([]byte, error) {
	return func(ctx context.Context, body []byte) ([]byte, error) {
		ev := abi.BeforeProviderRequestEvent{Provider: route.Provider, API: route.API, Model: route.ModelID, Body: body}
		out, changed, err := d.BeforeProviderRequest(ctx, ev)
		if err != nil || !changed {
			return nil, err
		}
		return out.Body, nil
	}
}
