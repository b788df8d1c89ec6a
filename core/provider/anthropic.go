package provider

import (
	"encoding/json"
	"fmt"
	"strings"
)

// anthropicBody is the messages request; field order is the wire order.
type anthropicBody struct {
	Model     string             `json:"model"`
	MaxTokens int                `json:"max_tokens"`
	System    string             `json:"system,omitempty"`
	Messages  []anthropicMessage `json:"messages"`
	Stream    bool               `json:"stream,omitempty"`
}

type anthropicMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// BuildAnthropicBody returns the JSON body of an Anthropic messages request:
//
//	{"model":…,"max_tokens":N,"system":"…","messages":[{"role":…,"content":…},…],"stream":true}
//
// That API has no system role in its message list, only one top-level
// "system" string, so the history is reshaped:
//
//   - Every non-empty system message, wherever it sits, is moved into
//     "system", in history order, joined by a blank line. A system message
//     that appears after the conversation started is therefore merged into
//     the top-level text rather than dropped or turned into a user turn; the
//     session layer normally collapses system text into one leading message
//     for this route (Route.AcceptsSystemInHistory is false), and this rule
//     only makes any leftover explicit. "system" is omitted when empty.
//   - User and assistant messages with empty content are dropped (the API
//     rejects empty text).
//   - Consecutive messages of the same role, including ones that become
//     adjacent after the two steps above, are merged into one, their contents
//     joined by a blank line, because the API requires turns to alternate.
//
// max_tokens is req.MaxTokens, else Route.MaxTokens, else
// DefaultAnthropicMaxTokens. "stream" appears only when req.Stream is set.
// The output is deterministic. It fails on an unknown role, a missing model
// id, or a history with no non-empty user or assistant message.
func BuildAnthropicBody(route Route, req Request) ([]byte, error) {
	model, err := modelFor(route, req)
	if err != nil {
		return nil, err
	}
	if err := checkRoles(route.label(), req.Messages); err != nil {
		return nil, err
	}
	body := anthropicBody{Model: model, MaxTokens: req.MaxTokens, Stream: req.Stream}
	if body.MaxTokens <= 0 {
		body.MaxTokens = route.MaxTokens
	}
	if body.MaxTokens <= 0 {
		body.MaxTokens = DefaultAnthropicMaxTokens
	}
	var system strings.Builder
	for _, m := range req.Messages {
		if m.Content == "" {
			continue
		}
		if m.Role == RoleSystem {
			if system.Len() > 0 {
				system.WriteString("\n\n")
			}
			system.WriteString(m.Content)
			continue
		}
		if n := len(body.Messages); n > 0 && body.Messages[n-1].Role == m.Role {
			body.Messages[n-1].Content += "\n\n" + m.Content
			continue
		}
		body.Messages = append(body.Messages, anthropicMessage{Role: m.Role, Content: m.Content})
	}
	if len(body.Messages) == 0 {
		return nil, fmt.Errorf("%s: request has no non-empty user or assistant message", route.label())
	}
	body.System = system.String()
	return encodeJSON(body)
}

// anthropicEvent is one streamed messages event; only what we read.
type anthropicEvent struct {
	Type    string `json:"type"`
	Message *struct {
		Usage *anthropicUsage `json:"usage"`
	} `json:"message"`
	Delta *struct {
		Type       string `json:"type"`
		Text       string `json:"text"`
		StopReason string `json:"stop_reason"`
	} `json:"delta"`
	Usage *anthropicUsage `json:"usage"`
	Error *apiErrorBody   `json:"error"`
}

type anthropicUsage struct {
	InputTokens              *int `json:"input_tokens"`
	OutputTokens             *int `json:"output_tokens"`
	CacheCreationInputTokens *int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     *int `json:"cache_read_input_tokens"`
}

// apply copies the counts that are present; message_delta repeats only some.
func (u *anthropicUsage) apply(dst *Usage) {
	if u == nil {
		return
	}
	set := func(p *int, d *int) {
		if p != nil {
			*d = *p
		}
	}
	set(u.InputTokens, &dst.InputTokens)
	set(u.OutputTokens, &dst.OutputTokens)
	set(u.CacheCreationInputTokens, &dst.CacheWriteTokens)
	set(u.CacheReadInputTokens, &dst.CacheReadTokens)
}

// anthropicStream folds messages events into a Response.
type anthropicStream struct {
	label   string
	out     *collector
	started bool
}

// event handles one SSE event; it reports whether the stream is over.
// Unknown event types (ping, content_block_start/stop, future ones) and
// non-text deltas (thinking, tool input) are ignored.
func (s *anthropicStream) event(ev Event) (bool, error) {
	data := strings.TrimSpace(ev.Data)
	if data == "" {
		return false, nil
	}
	var e anthropicEvent
	if err := json.Unmarshal([]byte(data), &e); err != nil {
		name := ev.Type
		if name == "" {
			name = "message"
		}
		return false, &StreamError{Provider: s.label, Reason: fmt.Sprintf("malformed JSON in %q event: %v (data: %s)", name, err, excerpt([]byte(data), 120))}
	}
	typ := e.Type
	if typ == "" {
		typ = ev.Type
	}
	switch typ {
	case "message_start":
		s.started = true
		if e.Message != nil {
			e.Message.Usage.apply(&s.out.resp.Usage)
		}
	case "content_block_delta":
		if e.Delta != nil && e.Delta.Type == "text_delta" && e.Delta.Text != "" {
			s.out.delta(e.Delta.Text)
		}
	case "message_delta":
		if e.Delta != nil && e.Delta.StopReason != "" {
			s.out.resp.StopReason = e.Delta.StopReason
		}
		e.Usage.apply(&s.out.resp.Usage)
	case "message_stop":
		return true, nil
	case "error":
		msg := "unspecified error"
		if e.Error != nil {
			msg = e.Error.String()
		}
		return false, &StreamError{Provider: s.label, Reason: "server reported an error mid-stream: " + msg}
	}
	return false, nil
}

// end is called when the body ends without message_stop.
func (s *anthropicStream) end() error {
	if !s.started {
		return &StreamError{Provider: s.label, Reason: "stream ended without any message_start event"}
	}
	return &StreamError{Provider: s.label, Reason: "stream ended before message_stop (connection cut short?)"}
}
