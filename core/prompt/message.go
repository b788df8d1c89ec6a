package prompt

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Block is one part of a message's content, in the established harness's
// shape: "text" (Text), "image" (Data base64, MimeType), "thinking"
// (Thinking, Signature) or "toolCall" (ID, Name, Arguments).
type Block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	Data      string          `json:"data,omitempty"`
	MimeType  string          `json:"mimeType,omitempty"`
	Thinking  string          `json:"thinking,omitempty"`
	Signature string          `json:"thinkingSignature,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// ArgumentsError says why a streamed call's arguments were not a JSON
	// object (Arguments is then {}); the call is answered with it instead
	// of running. The established harness records it under this name.
	ArgumentsError string `json:"argumentsError,omitempty"`
}

// Usage counts the tokens of one reply, as the established harness records
// them on assistant messages.
type Usage struct {
	Input      int `json:"input"`
	Output     int `json:"output"`
	CacheRead  int `json:"cacheRead"`
	CacheWrite int `json:"cacheWrite"`
	// Reasoning is the part of Output the model spent thinking, when the
	// provider reported it (nil: not reported, and not written, as the
	// established harness leaves it out then).
	Reasoning   *int `json:"reasoning,omitempty"`
	TotalTokens int  `json:"totalTokens"`
	Cost        Cost `json:"cost"`
	// CacheWrite1h is the part of CacheWrite written for an hour, which
	// Anthropic reports (nil for the other APIs, and not written).
	CacheWrite1h *int `json:"cacheWrite1h,omitempty"`
}

// Cost is what a reply cost in dollars; pi records zeros unless a price is
// configured.
type Cost struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cacheRead"`
	CacheWrite float64 `json:"cacheWrite"`
	Total      float64 `json:"total"`
	// TotalFromProvider says whether Total is what the provider billed
	// (OpenRouter reports it) rather than computed from the prices; nil
	// when no usage arrived to price, as the established harness writes
	// it only once it priced a reply.
	TotalFromProvider *bool `json:"totalFromProvider,omitempty"`
}

// Content is a message body: plain text, or a list of blocks when Blocks is
// non-nil. It round-trips through JSON in the form it was read.
type Content struct {
	Str    string
	Blocks []Block
}

// TextContent returns plain-text content.
func TextContent(s string) Content { return Content{Str: s} }

// Text returns the content as text: the string, or the text blocks joined by
// newlines.
func (c Content) Text() string {
	if c.Blocks == nil {
		return c.Str
	}
	parts := make([]string, 0, len(c.Blocks))
	for _, b := range c.Blocks {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// Simple returns the text when the content is plain text or a single text
// block; ok is false for anything richer.
func (c Content) Simple() (string, bool) {
	if c.Blocks == nil {
		return c.Str, true
	}
	switch {
	case len(c.Blocks) == 0:
		return "", true
	case len(c.Blocks) == 1 && c.Blocks[0].Type == "text":
		return c.Blocks[0].Text, true
	}
	return "", false
}

// MarshalJSON writes a string or an array of blocks.
func (c Content) MarshalJSON() ([]byte, error) {
	if c.Blocks != nil {
		return marshalPlain(c.Blocks)
	}
	return marshalPlain(c.Str)
}

// marshalPlain is json.Marshal without HTML escaping: a tool call's
// arguments and the text around them are stored as the model sent them
// (json.Marshal would turn "&&" in a command into "\u0026\u0026"), so a
// request rebuilt from the session is byte for byte the one sent, and the
// provider's prompt cache still matches it.
func marshalPlain(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// UnmarshalJSON accepts a string or an array of blocks.
func (c *Content) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '[' {
		var blocks []Block
		if err := json.Unmarshal(data, &blocks); err != nil {
			return fmt.Errorf("content blocks: %w", err)
		}
		if blocks == nil {
			blocks = []Block{}
		}
		*c = Content{Blocks: blocks}
		return nil
	}
	if string(data) == "null" {
		*c = Content{}
		return nil
	}
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("content: %w", err)
	}
	*c = Content{Str: s}
	return nil
}

// ToolRef names a tool declared to or withdrawn from the model. A declared
// tool carries its description and parameters (as the established harness
// records them), a withdrawn one only its name.
type ToolRef struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

// Message is a transcript message as the prompt layer sees it. System
// messages carry section patches and tool changes; others only content.
//
// Assistant messages also name the route that produced them (API, Provider,
// Model), their Usage and StopReason ("stop", "length", "toolUse",
// "error", "aborted"); tool results (role "toolResult") name the call they
// answer and whether it failed. Field names are the established harness's,
// so either harness can read the other's sessions.
type Message struct {
	Role         string    `json:"role"`
	Content      Content   `json:"content"`
	Sections     Patches   `json:"sections,omitempty"`
	ToolsAdded   []ToolRef `json:"toolsAdded,omitempty"`
	ToolsRemoved []ToolRef `json:"toolsRemoved,omitempty"`

	// assistant
	API          string `json:"api,omitempty"`
	Provider     string `json:"provider,omitempty"`
	Model        string `json:"model,omitempty"`
	Usage        *Usage `json:"usage,omitempty"`
	StopReason   string `json:"stopReason,omitempty"`
	ErrorMessage string `json:"errorMessage,omitempty"`

	// toolResult
	ToolCallID string          `json:"toolCallId,omitempty"`
	ToolName   string          `json:"toolName,omitempty"`
	Details    json.RawMessage `json:"details,omitempty"`
	IsError    *bool           `json:"isError,omitempty"`

	// The established harness's other message kinds, as its sessions and
	// get_messages carry them: "compactionSummary" and "branchSummary"
	// (Summary, TokensBefore, FromID), "custom" (an extension's message:
	// CustomType, Content, Display) and "bashExecution" (a command the
	// user ran with !: Command, Output and how it ended).
	Summary            string `json:"summary,omitempty"`
	TokensBefore       int    `json:"tokensBefore,omitempty"`
	FromID             string `json:"fromId,omitempty"`
	CustomType         string `json:"customType,omitempty"`
	Display            *bool  `json:"display,omitempty"`
	Command            string `json:"command,omitempty"`
	Output             string `json:"output,omitempty"`
	ExitCode           *int   `json:"exitCode,omitempty"`
	Cancelled          bool   `json:"cancelled,omitempty"`
	Truncated          bool   `json:"truncated,omitempty"`
	FullOutputPath     string `json:"fullOutputPath,omitempty"`
	ExcludeFromContext bool   `json:"excludeFromContext,omitempty"`

	Timestamp int64 `json:"timestamp"`

	// Facts of an assistant reply, after the timestamp as the established
	// harness adds them while the reply streams: the provider's id of the
	// response, the model that answered when it is not the one asked for,
	// the provider's own stop reason, how long the reply took from the
	// request to its end (nil when not measured, so that 0 ms is written),
	// and the thinking level the request asked for.
	ResponseID    string `json:"responseId,omitempty"`
	ResponseModel string `json:"responseModel,omitempty"`
	RawStopReason string `json:"rawStopReason,omitempty"`
	DurationMs    *int64 `json:"durationMs,omitempty"`
	ThinkingLevel string `json:"thinkingLevel,omitempty"`
}

// Roles beyond system, user and assistant.
const RoleToolResult = "toolResult"

// ToolCalls returns the tool-call blocks of an assistant message, in order.
func (m Message) ToolCalls() []Block {
	var out []Block
	for _, b := range m.Content.Blocks {
		if b.Type == "toolCall" {
			out = append(out, b)
		}
	}
	return out
}

// Failed reports whether a tool result says its call failed.
func (m Message) Failed() bool { return m.IsError != nil && *m.IsError }

// SystemText is the text a system message contributes: its content, then the
// texts of its non-empty sections, joined by blank lines.
func SystemText(m Message) string {
	parts := make([]string, 0, 1+len(m.Sections))
	if t := m.Content.Text(); t != "" {
		parts = append(parts, t)
	}
	for _, s := range m.Sections {
		if s.Text != nil && *s.Text != "" {
			parts = append(parts, *s.Text)
		}
	}
	return strings.Join(parts, "\n\n")
}

// Replay folds every system message of msgs into one: contents appended with
// blank lines, sections patched in place (new ones appended, nil removes),
// tools added and removed in order. The result keeps the first system
// message's timestamp. ok is false when msgs has no system message.
func Replay(msgs []Message) (Message, bool) {
	var cur Message
	found := false
	var content []string
	for _, m := range msgs {
		if m.Role != "system" {
			continue
		}
		if !found {
			found = true
			cur = Message{Role: "system", Timestamp: m.Timestamp}
		}
		if t := m.Content.Text(); t != "" {
			content = append(content, t)
		}
		for _, p := range m.Sections {
			if p.Text == nil {
				cur.Sections = removePatch(cur.Sections, p.Name)
				continue
			}
			cur.Sections = cur.Sections.set(p.Name, p.Text)
		}
		for _, t := range m.ToolsRemoved {
			cur.ToolsAdded = removeTool(cur.ToolsAdded, t.Name)
		}
		for _, t := range m.ToolsAdded {
			cur.ToolsAdded = removeTool(cur.ToolsAdded, t.Name)
			cur.ToolsAdded = append(cur.ToolsAdded, t)
		}
	}
	if !found {
		return Message{}, false
	}
	cur.Content = TextContent(strings.Join(content, "\n\n"))
	return cur, true
}

func removePatch(p Patches, name string) Patches {
	out := p[:0:0]
	for _, e := range p {
		if e.Name != name {
			out = append(out, e)
		}
	}
	return out
}

func removeTool(list []ToolRef, name string) []ToolRef {
	out := list[:0:0]
	for _, t := range list {
		if t.Name != name {
			out = append(out, t)
		}
	}
	return out
}

// collapse replaces the first system message with the replay of all of them
// and drops the others; the rest of the history is unchanged.
func collapse(msgs []Message) []Message {
	head, ok := Replay(msgs)
	if !ok {
		return append([]Message(nil), msgs...)
	}
	out := make([]Message, 0, len(msgs))
	placed := false
	for _, m := range msgs {
		if m.Role != "system" {
			out = append(out, m)
			continue
		}
		if !placed {
			out = append(out, head)
			placed = true
		}
	}
	return out
}

// UpdateNote renders a system-message patch as the short note sent in place
// on routes that take system messages mid-conversation: for each changed
// section a line naming it and its new text, for each removed one a line
// saying so.
func UpdateNote(p Patches) string {
	parts := make([]string, 0, len(p))
	for _, e := range p {
		if e.Text == nil {
			parts = append(parts, fmt.Sprintf(removedNote, e.Name))
			continue
		}
		parts = append(parts, fmt.Sprintf(updatedNote, e.Name)+"\n\n"+*e.Text)
	}
	return strings.Join(parts, "\n\n")
}
