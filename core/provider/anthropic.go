package provider

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// anthropicBody is the messages request; field order is the wire order.
type anthropicBody struct {
	Model     string             `json:"model"`
	MaxTokens int                `json:"max_tokens"`
	System    []anthropicBlock   `json:"system,omitempty"`
	Messages  []anthropicMessage `json:"messages"`
	Stream    bool               `json:"stream,omitempty"`
	Tools     []anthropicTool    `json:"tools,omitempty"`
}

// anthropicMessage's Content is a string or a list of blocks.
type anthropicMessage struct {
	Role    string `json:"role"`
	Content any    `json:"content"`
}

// anthropicBlock is any content block; only the fields of its Type are set.
type anthropicBlock struct {
	Type         string           `json:"type"`
	Text         *string          `json:"text,omitempty"`
	Thinking     *string          `json:"thinking,omitempty"`
	Signature    *string          `json:"signature,omitempty"`
	Source       *anthropicSource `json:"source,omitempty"`
	ID           string           `json:"id,omitempty"`
	Name         string           `json:"name,omitempty"`
	Input        json.RawMessage  `json:"input,omitempty"`
	ToolUseID    string           `json:"tool_use_id,omitempty"`
	Content      any              `json:"content,omitempty"`
	IsError      *bool            `json:"is_error,omitempty"`
	CacheControl *cacheControl    `json:"cache_control,omitempty"`
}

type anthropicSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
}

type anthropicTool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	EagerInput   bool            `json:"eager_input_streaming,omitempty"`
	InputSchema  json.RawMessage `json:"input_schema"`
	CacheControl *cacheControl   `json:"cache_control,omitempty"`
}

// cacheControl marks the end of a prompt prefix Anthropic may cache.
type cacheControl struct {
	Type string `json:"type"`
	TTL  string `json:"ttl,omitempty"`
}

// cacheControlFor is the breakpoint for a retention choice; nil for none.
func cacheControlFor(retention string) *cacheControl {
	switch retention {
	case CacheNone:
		return nil
	case CacheLong:
		return &cacheControl{Type: "ephemeral", TTL: "1h"}
	}
	return &cacheControl{Type: "ephemeral"}
}

// Texts the Anthropic body adds where a tool result's images must move.
const (
	errorImagePlaceholder = "(image attached after the tool results)"
	errorImagesCaption    = "Images from the error result of tool call %s (%s):"
)

func textBlock(s string) anthropicBlock { return anthropicBlock{Type: "text", Text: &s} }

func imageBlock(p Part) anthropicBlock {
	return anthropicBlock{Type: "image", Source: &anthropicSource{Type: "base64", MediaType: p.MimeType, Data: p.Data}}
}

// BuildAnthropicBody returns the JSON body of an Anthropic messages request:
//
//	{"model":…,"max_tokens":N,"system":[{"type":"text","text":"…","cache_control":{"type":"ephemeral"}}],"messages":[…],"stream":true,"tools":[…]}
//
// That API has no system role in its message list, only a top-level
// "system", and wants user and assistant turns to alternate, so the history
// is reshaped:
//
//   - Every non-empty system message, wherever it sits, is moved into
//     "system", in history order, joined by a blank line. A system message
//     that appears after the conversation started is therefore merged into
//     the top-level text rather than dropped or turned into a user turn; the
//     session layer normally collapses system text into one leading message
//     for this route (Route.AcceptsSystemInHistory is false), and this rule
//     only makes any leftover explicit. "system" is omitted when empty.
//   - A user message is its text, or text and base64 image blocks when it
//     has Parts; blank text is left out and a message left empty dropped.
//   - An assistant message becomes its thinking (a "thinking" block when
//     signed, plain text otherwise), its text and a "tool_use" block per
//     call; blank text is left out and an empty message dropped.
//   - Consecutive tool results become one user message of "tool_result"
//     blocks (with "is_error"); the images of a failed call, which the API
//     refuses inside an error result, follow the results with a caption. A
//     call left without a result gets an error result.
//   - Consecutive messages of the same role, including ones that become
//     adjacent after the steps above, are merged into one: two texts joined
//     by a blank line, block lists concatenated.
//
// Prompt caching: the system text, the last tool declaration and the last
// block of the final user message carry cache_control breakpoints, the
// places the established harness puts them, so each request reads the
// prefix the previous one wrote (an hour-long "ttl" with CacheLong, none
// with CacheNone). Tool ids are reduced to the characters the
// API accepts. Tool schemas are sent as input_schema with "type":"object",
// their "properties" and "required" (as given; empty when absent) and
// any "additionalProperties", "$defs" or "definitions"; other root keywords
// are left out because the API rejects some of them. Each tool asks for
// eager_input_streaming, so arguments stream in small fragments instead of
// arriving whole after a pause, as the established harness asks by default.
//
// max_tokens is outputCap's. "stream" appears only when req.Stream is set.
// The output is deterministic. It fails on an unknown role, a malformed
// message or tool, a missing model id, or a history with no non-empty user
// or assistant message.
func BuildAnthropicBody(route Route, req Request) ([]byte, error) {
	o, err := anthropicObject(route, req)
	if err != nil {
		return nil, err
	}
	return o.bytes(), nil
}

// anthropicObject is BuildAnthropicBody's body before it is written, so
// DryRun can add the thinking fields without decoding it again.
func anthropicObject(route Route, req Request) (*object, error) {
	model, err := modelFor(route, req)
	if err != nil {
		return nil, err
	}
	if err := checkMessages(route.label(), req.Messages); err != nil {
		return nil, err
	}
	if _, err := req.ToolsMemo.encoded("checked", req.Tools, func() ([]byte, error) { return nil, checkTools(route.label(), req.Tools) }); err != nil {
		return nil, err
	}
	if err := checkRetention(route.label(), req.CacheRetention); err != nil {
		return nil, err
	}
	cache := cacheControlFor(req.CacheRetention)
	body := anthropicBody{Model: model, MaxTokens: outputCap(route, req), Stream: req.Stream}
	var system strings.Builder
	msgs := closeToolCalls(req.Messages)
	// Each wire message is a group of messages: one that sends something
	// and the ones after it that merge into it (same role; tool results
	// are the user's) or send nothing (system text goes to "system").
	// A group's encoding is kept in its first message's Memo and reused
	// while the same messages follow; the last one is encoded each time,
	// as it carries the cache breakpoint.
	last := len(msgs) - 1
	for last >= 0 && (msgs[last].Role == RoleSystem || anthropicSendsNothing(msgs[last])) {
		last--
	}
	encoded := make([][]byte, 0, len(msgs))
	for i := 0; i < len(msgs); {
		m := msgs[i]
		if m.Role == RoleSystem || anthropicSendsNothing(m) {
			addSystem(&system, m)
			i++
			continue
		}
		role := anthropicRole(m)
		j := i + 1
		for j < len(msgs) && (msgs[j].Role == RoleSystem || anthropicSendsNothing(msgs[j]) || anthropicRole(msgs[j]) == role) {
			addSystem(&system, msgs[j])
			j++
		}
		group := msgs[i:j]
		if j <= last {
			if enc, ok := m.Memo.formGroup(shapeAnthropic, group[1:]); ok {
				encoded = append(encoded, enc)
				i = j
				continue
			}
		}
		wm := anthropicGroup(group)
		if j > last && cache != nil {
			one := []anthropicMessage{wm}
			markLastUserMessage(one, cache)
			wm = one[0]
		}
		b, err := encodeJSON(wm)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", route.label(), err)
		}
		if j <= last && !groupHasImage(group) {
			m.Memo.keepGroup(shapeAnthropic, b, group[1:])
		}
		encoded = append(encoded, b)
		i = j
	}
	if len(encoded) == 0 {
		return nil, fmt.Errorf("%s: request has no non-empty user or assistant message", route.label())
	}
	if system.Len() > 0 {
		body.System = []anthropicBlock{textBlock(system.String())}
		body.System[0].CacheControl = cache
	}
	// The members in the order of anthropicBody's fields (its wire order).
	o := &object{members: make([]member, 0, 8)}
	add := func(k string, v any) error {
		b, err := encodeJSON(v)
		if err != nil {
			return fmt.Errorf("%s: %w", route.label(), err)
		}
		o.set(k, b)
		return nil
	}
	if err := add("model", body.Model); err != nil {
		return nil, err
	}
	o.set("max_tokens", json.RawMessage(strconv.Itoa(body.MaxTokens)))
	if len(body.System) > 0 {
		if err := add("system", body.System); err != nil {
			return nil, err
		}
	}
	o.setList("messages", encoded)
	if body.Stream {
		o.set("stream", json.RawMessage("true"))
	}
	if len(req.Tools) > 0 {
		// The list depends on the declarations and on where the cache
		// breakpoint goes (the last tool, with the retention's ttl).
		shape := shapeAnthropic + "/tools/" + req.CacheRetention
		enc, err := req.ToolsMemo.encoded(shape, req.Tools, func() ([]byte, error) {
			tools := make([]anthropicTool, 0, len(req.Tools))
			for _, t := range req.Tools {
				schema, err := anthropicSchema(schemaOf(t))
				if err != nil {
					return nil, fmt.Errorf("tool %q: %v", t.Name, err)
				}
				tools = append(tools, anthropicTool{Name: t.Name, Description: t.Description, EagerInput: true, InputSchema: schema})
			}
			tools[len(tools)-1].CacheControl = cache
			return encodeJSON(tools)
		})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", route.label(), err)
		}
		o.set("tools", enc)
	}
	return o, nil
}

// anthropicRole is the role m is sent in: tool results go as the user's.
func anthropicRole(m Message) string {
	if m.Role == RoleTool {
		return RoleUser
	}
	return m.Role
}

// anthropicSendsNothing reports whether m, not a system message, is left
// out of the body: blank text, no images, no thinking, no calls.
func anthropicSendsNothing(m Message) bool {
	switch m.Role {
	case RoleUser:
		if m.Parts == nil {
			return strings.TrimSpace(m.Content) == ""
		}
		for _, p := range m.Parts {
			if p.Type != PartText || strings.TrimSpace(p.Text) != "" {
				return false
			}
		}
		return true
	case RoleAssistant:
		return strings.TrimSpace(m.ThinkingSignature) == "" && strings.TrimSpace(m.Thinking) == "" &&
			strings.TrimSpace(m.Content) == "" && len(m.ToolCalls) == 0
	}
	return false
}

// addSystem adds a system message's text to the system prompt.
func addSystem(system *strings.Builder, m Message) {
	if m.Role != RoleSystem || m.Content == "" {
		return
	}
	if system.Len() > 0 {
		system.WriteString("\n\n")
	}
	system.WriteString(m.Content)
}

// groupHasImage reports whether a message of msgs carries an image (kept
// out of the memos: large, and sent once in a while at most).
func groupHasImage(msgs []Message) bool {
	for _, m := range msgs {
		if hasImage(m.Parts) {
			return true
		}
	}
	return false
}

// anthropicGroup is the one wire message a group of messages becomes: each
// message's content (a run of tool results together), merged in order.
func anthropicGroup(msgs []Message) anthropicMessage {
	var out anthropicMessage
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		var content any
		switch m.Role {
		case RoleUser:
			if m.Parts == nil {
				if strings.TrimSpace(m.Content) != "" {
					content = m.Content
				}
			} else if blocks := anthropicParts(m.Parts); len(blocks) > 0 {
				content = blocks
			}
		case RoleAssistant:
			if blocks := anthropicAssistant(m); len(blocks) > 0 {
				content = blocks
			}
		case RoleTool:
			j := i
			for j < len(msgs) && msgs[j].Role == RoleTool {
				j++
			}
			content = anthropicToolResults(msgs[i:j])
			i = j - 1
		}
		if content == nil {
			continue
		}
		if out.Content == nil {
			out = anthropicMessage{Role: anthropicRole(m), Content: content}
			continue
		}
		out.Content = mergeContent(out.Content, content)
	}
	return out
}

// mergeContent joins two contents of one turn.
func mergeContent(a, b any) any {
	as, aText := a.(string)
	bs, bText := b.(string)
	if aText && bText {
		return as + "\n\n" + bs
	}
	return append(asBlocks(a), asBlocks(b)...)
}

func asBlocks(c any) []anthropicBlock {
	if s, ok := c.(string); ok {
		return []anthropicBlock{textBlock(s)}
	}
	return c.([]anthropicBlock)
}

// markLastUserMessage puts a cache breakpoint on the last block of the
// final message when it is the user's: the whole conversation before the
// reply is then the cached prefix of the next request.
func markLastUserMessage(msgs []anthropicMessage, cache *cacheControl) {
	last := &msgs[len(msgs)-1]
	if last.Role != RoleUser {
		return
	}
	blocks := asBlocks(last.Content)
	b := &blocks[len(blocks)-1]
	switch b.Type {
	case "text", "image", "tool_result":
		b.CacheControl = cache
	}
	last.Content = blocks
}

func anthropicParts(parts []Part) []anthropicBlock {
	var out []anthropicBlock
	for _, p := range parts {
		if p.Type == PartText {
			if strings.TrimSpace(p.Text) != "" {
				out = append(out, textBlock(p.Text))
			}
			continue
		}
		out = append(out, imageBlock(p))
	}
	return out
}

func anthropicAssistant(m Message) []anthropicBlock {
	var out []anthropicBlock
	switch {
	case strings.TrimSpace(m.ThinkingSignature) != "":
		th, sig := m.Thinking, m.ThinkingSignature
		out = append(out, anthropicBlock{Type: "thinking", Thinking: &th, Signature: &sig})
	case strings.TrimSpace(m.Thinking) != "":
		// Unsigned thinking (an aborted stream, another API) cannot go back as
		// thinking; the established harness sends it as text.
		out = append(out, textBlock(m.Thinking))
	}
	if strings.TrimSpace(m.Content) != "" {
		out = append(out, textBlock(m.Content))
	}
	for _, tc := range m.ToolCalls {
		out = append(out, anthropicBlock{Type: "tool_use", ID: anthropicToolID(tc.ID), Name: tc.Name, Input: argsOf(tc)})
	}
	return out
}

// anthropicToolResults converts a run of tool results into the blocks of
// one user message.
func anthropicToolResults(results []Message) []anthropicBlock {
	var out, trailing []anthropicBlock
	for _, m := range results {
		parts := partsOf(m)
		if m.IsError && hasImage(parts) {
			trailing = append(trailing, textBlock(fmt.Sprintf(errorImagesCaption, anthropicToolID(m.ToolCallID), m.ToolName)))
			var kept []Part
			for k, p := range parts {
				if p.Type == PartImage {
					trailing = append(trailing, imageBlock(p))
					if k == 0 || parts[k-1].Type != PartImage {
						kept = append(kept, Part{Type: PartText, Text: errorImagePlaceholder})
					}
					continue
				}
				kept = append(kept, p)
			}
			parts = kept
		}
		isErr := m.IsError
		out = append(out, anthropicBlock{Type: "tool_result", ToolUseID: anthropicToolID(m.ToolCallID), Content: toolResultContent(parts), IsError: &isErr})
	}
	return append(out, trailing...)
}

// toolResultContent is a string when parts are all text (joined by
// newlines), else a block list that always has some text.
func toolResultContent(parts []Part) any {
	if !hasImage(parts) {
		texts := make([]string, 0, len(parts))
		for _, p := range parts {
			texts = append(texts, p.Text)
		}
		return strings.Join(texts, "\n")
	}
	var out []anthropicBlock
	hasText := false
	for _, p := range parts {
		if p.Type == PartText {
			out = append(out, textBlock(p.Text))
			hasText = true
		} else {
			out = append(out, imageBlock(p))
		}
	}
	if !hasText {
		out = append([]anthropicBlock{textBlock(toolImageOnlyText)}, out...)
	}
	return out
}

// anthropicToolID maps a call id onto the characters and length the API
// accepts; ids it already accepts are unchanged.
func anthropicToolID(id string) string {
	b := []byte(id)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	if len(b) > 64 {
		b = b[:64]
	}
	return string(b)
}

// anthropicSchema rebuilds a tool's JSON schema as the object schema the
// API accepts, keeping the sub-schemas as given.
func anthropicSchema(raw json.RawMessage) (json.RawMessage, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, fmt.Errorf("parameters must be a JSON object schema: %v", err)
	}
	var buf bytes.Buffer
	buf.WriteString(`{"type":"object","properties":`)
	writeOr(&buf, fields["properties"], "{}")
	buf.WriteString(`,"required":`)
	writeOr(&buf, fields["required"], "[]")
	for _, k := range []string{"additionalProperties", "$defs", "definitions"} {
		if v, ok := fields[k]; ok {
			fmt.Fprintf(&buf, `,%q:`, k)
			buf.Write(v)
		}
	}
	buf.WriteByte('}')
	return compactJSON(buf.Bytes()), nil
}

func writeOr(buf *bytes.Buffer, v json.RawMessage, def string) {
	if len(v) == 0 || string(v) == "null" {
		buf.WriteString(def)
		return
	}
	buf.Write(v)
}

// anthropicEvent is one streamed messages event; only what we read.
type anthropicEvent struct {
	Type    string `json:"type"`
	Index   int    `json:"index"`
	Message *struct {
		ID    string          `json:"id"`
		Model string          `json:"model"`
		Usage *anthropicUsage `json:"usage"`
	} `json:"message"`
	ContentBlock *struct {
		Type     string          `json:"type"`
		Text     string          `json:"text"`
		Thinking string          `json:"thinking"`
		ID       string          `json:"id"`
		Name     string          `json:"name"`
		Input    json.RawMessage `json:"input"`
	} `json:"content_block"`
	Delta *struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		Thinking    string `json:"thinking"`
		PartialJSON string `json:"partial_json"`
		Signature   string `json:"signature"`
		StopReason  string `json:"stop_reason"`
	} `json:"delta"`
	Usage *anthropicUsage `json:"usage"`
	Error *apiErrorBody   `json:"error"`
}

type anthropicUsage struct {
	InputTokens              *int `json:"input_tokens"`
	OutputTokens             *int `json:"output_tokens"`
	CacheCreationInputTokens *int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     *int `json:"cache_read_input_tokens"`
	CacheCreation            *struct {
		Ephemeral1hInputTokens *int `json:"ephemeral_1h_input_tokens"`
	} `json:"cache_creation"`
	// The thinking part of output_tokens, reported in message_delta.
	OutputTokensDetails *struct {
		ThinkingTokens *int `json:"thinking_tokens"`
	} `json:"output_tokens_details"`
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
	if c := u.CacheCreation; c != nil && c.Ephemeral1hInputTokens != nil {
		dst.CacheWrite1hTokens = *c.Ephemeral1hInputTokens
	}
	if d := u.OutputTokensDetails; d != nil && d.ThinkingTokens != nil {
		dst.ReasoningTokens, dst.ReasoningReported = *d.ThinkingTokens, true
	}
}

// anthropicStream folds messages events into an assembler.
type anthropicStream struct {
	label   string
	out     *assembler
	started bool
	open    map[int]int // Anthropic block index → content index
}

// event handles one SSE event; it reports whether the stream is over.
// Unknown event types (ping, future ones) and block types (redacted
// thinking, server tools) are ignored, as are deltas that do not fit their
// block.
func (s *anthropicStream) event(ev sseEvent) (bool, error) {
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
		return false, &streamError{Provider: s.label, Reason: fmt.Sprintf("malformed JSON in %q event: %v (data: %s)", name, err, excerpt([]byte(data), 120))}
	}
	typ := e.Type
	if typ == "" {
		typ = ev.Type
	}
	if s.open == nil {
		s.open = map[int]int{}
	}
	switch typ {
	case "message_start":
		s.started = true
		// Priced from here on, as the established harness prices the
		// counts message_start carries.
		s.out.usage.Reported, s.out.usage.CacheWrite1hReported = true, true
		if e.Message != nil {
			s.out.respID = e.Message.ID
			if e.Message.Model != "" {
				s.out.answeredBy(e.Message.Model)
			}
			e.Message.Usage.apply(&s.out.usage)
		}
	case "content_block_start":
		if e.ContentBlock == nil {
			return false, nil
		}
		cb := e.ContentBlock
		switch cb.Type {
		case "text":
			i := s.out.start(blockText, "", "")
			s.open[e.Index] = i
			if cb.Text != "" {
				s.out.delta(i, cb.Text)
			}
		case "thinking":
			i := s.out.start(blockThinking, "", "")
			s.open[e.Index] = i
			if cb.Thinking != "" {
				s.out.delta(i, cb.Thinking)
			}
		case "tool_use":
			i := s.out.start(blockToolCall, cb.ID, cb.Name)
			s.out.blocks[i].initArgs = cb.Input
			s.open[e.Index] = i
		}
	case "content_block_delta":
		if e.Delta == nil {
			return false, nil
		}
		i, ok := s.open[e.Index]
		if !ok && e.Delta.Type == "text_delta" {
			// A delta without its start (a lax proxy): open the block it implies.
			i, ok = s.out.start(blockText, "", ""), true
			s.open[e.Index] = i
		}
		if !ok {
			return false, nil
		}
		b := s.out.blocks[i]
		switch {
		case e.Delta.Type == "text_delta" && b.kind == blockText:
			s.out.delta(i, e.Delta.Text)
		case e.Delta.Type == "thinking_delta" && b.kind == blockThinking:
			s.out.delta(i, e.Delta.Thinking)
		case e.Delta.Type == "input_json_delta" && b.kind == blockToolCall:
			s.out.delta(i, e.Delta.PartialJSON)
		case e.Delta.Type == "signature_delta" && b.kind == blockThinking:
			b.sig += e.Delta.Signature
		}
	case "content_block_stop":
		if i, ok := s.open[e.Index]; ok {
			delete(s.open, e.Index)
			s.out.end(i)
		}
	case "message_delta":
		if e.Delta != nil && e.Delta.StopReason != "" {
			s.out.setStop(APIAnthropicMessages, e.Delta.StopReason)
		}
		e.Usage.apply(&s.out.usage)
	case "message_stop":
		s.out.endAll()
		return true, nil
	case "error":
		msg, transient := "unspecified error", false
		if e.Error != nil {
			msg, transient = e.Error.String(), e.Error.transient()
		}
		return false, &streamError{Provider: s.label, Reason: "server reported an error mid-stream: " + msg, transient: transient}
	}
	return false, nil
}

// end is called when the body ends without message_stop.
func (s *anthropicStream) end() error {
	if !s.started {
		return &streamError{Provider: s.label, Reason: "stream ended without any message_start event"}
	}
	return &streamError{Provider: s.label, Reason: "stream ended before message_stop (connection cut short?)"}
}
