package provider

import (
	"context"
	"encoding/json"
	"fmt"
)

// Roles a Message may carry.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	// RoleTool marks the result of one tool call (ToolCallID, ToolName,
	// IsError, and Content or Parts).
	RoleTool = "tool"
)

// Part types.
const (
	PartText  = "text"
	PartImage = "image"
)

// Message is one turn of a conversation in provider-neutral form.
//
// Role is one of RoleSystem, RoleUser, RoleAssistant or RoleTool; any other
// value makes the body builders fail. Content is plain text; for user and
// tool messages Parts, when non-nil, replaces it with text and image parts.
//
// An assistant message carries the text it produced in Content, the calls it
// made in ToolCalls and, optionally, its reasoning in Thinking with the
// provider's ThinkingSignature (needed to send Anthropic thinking back as
// thinking; without it the text is sent as ordinary text, and OpenAI
// compatible servers get it back only in the reasoning field it came from).
//
// A tool message answers the call ToolCallID of the preceding assistant
// message; IsError marks a failed call.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
	Parts   []Part `json:"parts,omitempty"`

	ToolCalls         []ToolCall `json:"toolCalls,omitempty"`
	Thinking          string     `json:"thinking,omitempty"`
	ThinkingSignature string     `json:"thinkingSignature,omitempty"`

	ToolCallID string `json:"toolCallId,omitempty"`
	ToolName   string `json:"toolName,omitempty"`
	IsError    bool   `json:"isError,omitempty"`

	// Memo, when set, keeps the message's checks and encodings from one
	// request to the next (see Memo); the message must not change after.
	Memo *Memo `json:"-"`
}

// Part is one piece of user or tool-result content: Type PartText with Text,
// or PartImage with MimeType and base64 Data.
type Part struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	MimeType string `json:"mimeType,omitempty"`
	Data     string `json:"data,omitempty"`
}

// ToolCall is one call an assistant message makes. Arguments is a JSON
// object (never empty: a call streamed without arguments gets "{}").
// ArgumentsError, set only on calls decoded from a stream, says why the
// streamed arguments were not a JSON object; Arguments is then "{}" and the
// caller should answer the call with an error result.
type ToolCall struct {
	ID             string          `json:"id"`
	Name           string          `json:"name"`
	Arguments      json.RawMessage `json:"arguments"`
	ArgumentsError string          `json:"argumentsError,omitempty"`
}

// ToolSpec declares a tool to the model. Parameters is a JSON schema, sent
// as is apart from insignificant white space (nil sends an empty object
// schema).
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// Request is a provider-neutral chat request.
//
// Model, when non-empty, overrides Route.ModelID. MaxTokens caps the reply;
// zero means "use the route's default" (see Route.MaxTokens). Stream asks for
// a server-sent-event reply; Client.Stream always sets it. Tools are the
// declarations sent with the request, in order.
//
// CacheRetention chooses how long a provider should keep the prompt cache:
// "" or CacheShort (the provider's default), CacheLong (an hour on
// Anthropic, a day on OpenAI; the established harness turns it on with
// PI_CACHE_RETENTION=long) or CacheNone (no cache breakpoints). SessionID,
// when set, keys OpenAI's prompt cache on api.openai.com (prompt_cache_key),
// so the requests of one session land on the same cache.
type Request struct {
	Model          string
	Messages       []Message
	MaxTokens      int
	Stream         bool
	Tools          []ToolSpec
	CacheRetention string
	SessionID      string
	// ToolsMemo, when set, keeps Tools checked and encoded from one
	// request to the next (a session gives its requests one).
	ToolsMemo *ToolsMemo `json:"-"`
	// Patch, when set, sees the serialised body before it is sent and
	// returns the body to send (nil: unchanged); an error stops the
	// request. Extensions' before_provider_request hook is one.
	Patch func(ctx context.Context, body []byte) ([]byte, error) `json:"-"`
	// NoRetry sends the request once, whatever the client's RetryPolicy:
	// the caller retries it in a loop of its own (summary requests).
	NoRetry bool `json:"-"`
}

// Cache retention choices for Request.CacheRetention.
const (
	CacheShort = "short"
	CacheLong  = "long"
	CacheNone  = "none"
)

// checkRetention reports an unknown CacheRetention.
func checkRetention(provider, r string) error {
	switch r {
	case "", CacheShort, CacheLong, CacheNone:
		return nil
	}
	return fmt.Errorf("%s: unknown cache retention %q (want short, long or none)", provider, r)
}

// checkMessages reports the first message whose role is not one we know, or
// whose fields do not fit its role.
func checkMessages(provider string, msgs []Message) error {
	for i := range msgs {
		m := &msgs[i] // not a copy: this runs over the whole history every request
		if m.Memo.isChecked() {
			continue
		}
		switch m.Role {
		case RoleSystem, RoleUser, RoleAssistant:
		case RoleTool:
			if m.ToolCallID == "" {
				return fmt.Errorf("%s: message %d is a tool result without a tool call id", provider, i)
			}
		default:
			return fmt.Errorf("%s: message %d has unknown role %q (want system, user, assistant or tool)", provider, i, m.Role)
		}
		for j, p := range m.Parts {
			switch p.Type {
			case PartText:
			case PartImage:
				if p.MimeType == "" {
					return fmt.Errorf("%s: message %d part %d is an image without a mime type", provider, i, j)
				}
			default:
				return fmt.Errorf("%s: message %d part %d has unknown type %q (want text or image)", provider, i, j, p.Type)
			}
		}
		for j, tc := range m.ToolCalls {
			if tc.Name == "" {
				return fmt.Errorf("%s: message %d tool call %d has no name", provider, i, j)
			}
			if len(tc.Arguments) > 0 && !json.Valid(tc.Arguments) {
				return fmt.Errorf("%s: message %d tool call %d (%s) has arguments that are not valid JSON", provider, i, j, tc.Name)
			}
		}
		m.Memo.markChecked()
	}
	return nil
}

// checkTools reports a declaration the APIs would reject.
func checkTools(provider string, tools []ToolSpec) error {
	seen := make(map[string]bool, len(tools))
	for i, t := range tools {
		if t.Name == "" {
			return fmt.Errorf("%s: tool %d has no name", provider, i)
		}
		if seen[t.Name] {
			return fmt.Errorf("%s: tool %q is declared twice", provider, t.Name)
		}
		seen[t.Name] = true
		if len(t.Parameters) > 0 && !json.Valid(t.Parameters) {
			return fmt.Errorf("%s: tool %q has parameters that are not valid JSON", provider, t.Name)
		}
	}
	return nil
}

// schemaOf returns the parameters to send for t.
func schemaOf(t ToolSpec) json.RawMessage {
	if len(t.Parameters) == 0 {
		return json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return t.Parameters
}

// argsOf returns the arguments to send for tc.
func argsOf(tc ToolCall) json.RawMessage {
	if len(tc.Arguments) == 0 {
		return json.RawMessage("{}")
	}
	return tc.Arguments
}

// partsOf returns m's content as parts: Parts when set, else one text part
// (none for empty Content).
func partsOf(m Message) []Part {
	if m.Parts != nil {
		return m.Parts
	}
	if m.Content == "" {
		return nil
	}
	return []Part{{Type: PartText, Text: m.Content}}
}

// hasImage reports whether any part is an image.
func hasImage(parts []Part) bool {
	for _, p := range parts {
		if p.Type == PartImage {
			return true
		}
	}
	return false
}

// closeToolCalls returns msgs where every tool call of an assistant message
// is answered before the next user or assistant message: a call left without
// a result (a crash or an abort in the middle of a turn) gets an error result
// saying so, because both APIs reject a history with an unanswered call.
// System messages between a call and its results stay after the results.
func closeToolCalls(msgs []Message) []Message {
	if !needsClosing(msgs) {
		return msgs // the usual case, found without copying the history
	}
	var pending []ToolCall
	answered := map[string]bool{}
	var held []Message
	var out []Message
	changed := false
	flush := func() {
		for _, tc := range pending {
			if !answered[tc.ID] {
				out = append(out, Message{Role: RoleTool, ToolCallID: tc.ID, ToolName: tc.Name, Content: "No result provided", IsError: true})
				changed = true
			}
		}
		pending = nil
		clear(answered)
		out = append(out, held...)
		held = held[:0]
	}
	for _, m := range msgs {
		switch m.Role {
		case RoleAssistant:
			flush()
			pending = append(pending, m.ToolCalls...)
			out = append(out, m)
		case RoleTool:
			answered[m.ToolCallID] = true
			out = append(out, m)
		case RoleSystem:
			if len(pending) > 0 {
				held = append(held, m)
				changed = true
			} else {
				out = append(out, m)
			}
		default:
			flush()
			out = append(out, m)
		}
	}
	flush()
	if !changed {
		return msgs
	}
	return out
}

// needsClosing reports whether closeToolCalls has anything to change: a
// call without a result before the next user or assistant message, or a
// system message among an assistant message's results.
func needsClosing(msgs []Message) bool {
	for i := range msgs {
		m := &msgs[i] // not a copy: this runs over the whole history every request
		if m.Role != RoleAssistant || len(m.ToolCalls) == 0 {
			continue
		}
		end := i + 1
		for end < len(msgs) && (msgs[end].Role == RoleTool || msgs[end].Role == RoleSystem) {
			if msgs[end].Role == RoleSystem {
				return true
			}
			end++
		}
		for _, tc := range m.ToolCalls {
			answered := false
			for j := i + 1; j < end; j++ {
				if msgs[j].ToolCallID == tc.ID {
					answered = true
					break
				}
			}
			if !answered {
				return true
			}
		}
	}
	return false
}

// modelFor picks the model name sent on the wire.
func modelFor(route Route, req Request) (string, error) {
	if req.Model != "" {
		return req.Model, nil
	}
	if route.ModelID != "" {
		return route.ModelID, nil
	}
	return "", fmt.Errorf("%s: no model id: set Route.ModelID or Request.Model", route.label())
}

// DefaultMaxTokens is the output cap sent when neither the Request nor the
// Route sets one: the established harness's default maxTokens for a model
// models.json does not size.
const DefaultMaxTokens = 16384

// Context-window margins, as the established harness keeps them: the cap
// leaves room for the input being counted higher than estimated.
const (
	contextSafetyTokens      = 4096
	contextSafetyRatio       = 0.15
	minOutputWithRatioMargin = 32768
	charsPerToken            = 3.5
	imageChars               = 4800
)

// outputCap is the max_tokens a request sends: req.MaxTokens, else
// Route.MaxTokens, else DefaultMaxTokens, fitted into Route.ContextWindow
// (when known) after an estimate of the input, so a long conversation does
// not ask for more output than the window has room for.
func outputCap(route Route, req Request) int {
	n := req.MaxTokens
	if n <= 0 {
		n = route.MaxTokens
	}
	if n <= 0 {
		n = DefaultMaxTokens
	}
	if route.ContextWindow <= 0 {
		return max(1, n)
	}
	input := estimateTokens(req)
	margin := max(contextSafetyTokens, int(float64(input)*contextSafetyRatio+0.999))
	room := route.ContextWindow - input - margin
	if room < minOutputWithRatioMargin {
		room = min(minOutputWithRatioMargin, route.ContextWindow-input-contextSafetyTokens)
	}
	return min(n, max(1, room))
}

// messageChars is what estimateTokens counts for one message.
func messageChars(m Message) int {
	chars := len(m.Content) + len(m.Thinking)
	for _, p := range m.Parts {
		if p.Type == PartImage {
			chars += imageChars
		} else {
			chars += len(p.Text)
		}
	}
	for _, tc := range m.ToolCalls {
		chars += len(tc.Name) + len(argsOf(tc))
	}
	return chars
}

// estimateTokens guesses the input size of req from its characters (a
// message with a Memo is counted once).
func estimateTokens(req Request) int {
	chars := 0
	for i := range req.Messages {
		chars += messageSize(&req.Messages[i])
	}
	for _, t := range req.Tools {
		chars += len(t.Name) + len(t.Description) + len(t.Parameters)
	}
	return int(float64(chars)/charsPerToken + 0.999)
}
