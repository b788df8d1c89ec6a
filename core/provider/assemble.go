package provider

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Content block kinds of an assistant message being assembled.
const (
	blockText     = "text"
	blockThinking = "thinking"
	blockToolCall = "toolCall"
)

// assembler folds the decoded pieces of one streamed reply into a Response
// and turns them into StreamEvents. Both API decoders feed it, so the events
// and the assembled reply follow the same rules whatever the wire format.
type assembler struct {
	onEvent   func(StreamEvent)
	delivered bool // onEvent has seen at least one event: no retry from here
	usage     Usage
	rawStop   string
	stop      string // normalised from rawStop
	refusal   string // set when the provider's stop reason means failure
	blocks    []*block
	// asked is the model the route names; respID and respModel what the
	// provider said of its response (respModel only when another model
	// answered).
	asked, respID, respModel string
	// openRouter: the route is OpenRouter's, whose billed cost replaces
	// the one computed from the prices.
	openRouter bool
}

type block struct {
	kind     string
	buf      strings.Builder // text, thinking, or argument JSON
	sig      string          // thinking signature
	id, name string
	initArgs json.RawMessage // arguments announced whole at the start (Anthropic)
	ended    bool
	call     *ToolCall
}

func newAssembler(onEvent func(StreamEvent)) *assembler {
	return &assembler{onEvent: onEvent}
}

func (a *assembler) emit(ev StreamEvent) {
	a.delivered = true
	if a.onEvent != nil {
		ev.Usage = a.usage
		a.onEvent(ev)
	}
}

// start opens a block and returns its content index.
func (a *assembler) start(kind, id, name string) int {
	i := len(a.blocks)
	if kind == blockToolCall {
		id = a.uniqueID(id, i)
	}
	b := &block{kind: kind, id: id, name: name}
	a.blocks = append(a.blocks, b)
	switch kind {
	case blockText:
		a.emit(StreamEvent{Type: EventTextStart, ContentIndex: i})
	case blockThinking:
		a.emit(StreamEvent{Type: EventThinkingStart, ContentIndex: i})
	case blockToolCall:
		a.emit(StreamEvent{Type: EventToolCallStart, ContentIndex: i, ID: id, ToolName: name})
	}
	return i
}

// uniqueID returns id for the tool call at content index i, or, when an
// earlier call of the reply already has it, id with a suffix: results are
// matched to calls by id, in the session, in events and by the providers
// (Anthropic refuses a history with two tool_use blocks of one id). An
// empty id (some local servers send none) gets one made from the index.
func (a *assembler) uniqueID(id string, i int) string {
	taken := func(s string) bool {
		for j, b := range a.blocks {
			if j != i && b.kind == blockToolCall && b.id == s {
				return true
			}
		}
		return false
	}
	base := id
	if base == "" {
		base = fmt.Sprintf("call_%d", i)
	}
	out := base
	for n := 2; taken(out); n++ {
		out = fmt.Sprintf("%s_%d", base, n)
	}
	return out
}

// delta appends s to block i. Tool-call deltas are reported even when empty
// (a fragment that only carried the id or name), as the established harness
// does; text and thinking deltas only when they carry text.
func (a *assembler) delta(i int, s string) {
	b := a.blocks[i]
	b.buf.WriteString(s)
	switch b.kind {
	case blockText:
		if s != "" {
			a.emit(StreamEvent{Type: EventTextDelta, ContentIndex: i, Delta: s})
		}
	case blockThinking:
		if s != "" {
			a.emit(StreamEvent{Type: EventThinkingDelta, ContentIndex: i, Delta: s})
		}
	case blockToolCall:
		a.emit(StreamEvent{Type: EventToolCallDelta, ContentIndex: i, Delta: s, ID: b.id, ToolName: b.name})
	}
}

// end closes block i (once).
func (a *assembler) end(i int) {
	b := a.blocks[i]
	if b.ended {
		return
	}
	b.ended = true
	switch b.kind {
	case blockText:
		a.emit(StreamEvent{Type: EventTextEnd, ContentIndex: i, Content: b.buf.String()})
	case blockThinking:
		a.emit(StreamEvent{Type: EventThinkingEnd, ContentIndex: i, Content: b.buf.String()})
	case blockToolCall:
		args, problem := finishArguments(b.buf.String(), b.initArgs)
		b.call = &ToolCall{ID: b.id, Name: b.name, Arguments: args, ArgumentsError: problem}
		call := *b.call
		a.emit(StreamEvent{Type: EventToolCallEnd, ContentIndex: i, ID: b.id, ToolName: b.name, ToolCall: &call})
	}
}

// endAll closes every open block in content order.
func (a *assembler) endAll() {
	for i := range a.blocks {
		a.end(i)
	}
}

// answeredBy records the model the provider says answered, unless it is
// the one asked for or one was recorded before.
func (a *assembler) answeredBy(model string) {
	if a.respModel == "" && model != a.asked {
		a.respModel = model
	}
}

// setStop records the provider's stop reason and its normalised form.
func (a *assembler) setStop(api, raw string) {
	a.rawStop = raw
	a.stop, a.refusal = mapStopReason(api, raw)
}

// result is the reply so far. Only finished tool calls are included: a
// call cut off mid-arguments must never run.
func (a *assembler) result() Response {
	var r Response
	var text, thinking strings.Builder
	thinkingBlocks := 0
	for _, b := range a.blocks {
		switch b.kind {
		case blockText:
			text.WriteString(b.buf.String())
		case blockThinking:
			if thinkingBlocks > 0 {
				thinking.WriteString("\n")
			}
			thinking.WriteString(b.buf.String())
			thinkingBlocks++
			r.ThinkingSignature = b.sig
		case blockToolCall:
			if b.call != nil {
				r.ToolCalls = append(r.ToolCalls, *b.call)
			}
		}
	}
	if thinkingBlocks != 1 {
		// One signature covers one block; joined blocks cannot be signed.
		r.ThinkingSignature = ""
	}
	r.Text, r.Thinking = text.String(), thinking.String()
	r.Usage = a.usage
	r.RawStopReason = a.rawStop
	r.ResponseID, r.ResponseModel = a.respID, a.respModel
	r.StopReason = a.stop
	if r.StopReason == "" {
		r.StopReason = StopReasonStop
		if len(r.ToolCalls) > 0 {
			r.StopReason = StopReasonToolUse
		}
	}
	return r
}

// mapStopReason normalises a provider's stop reason. For a reason that means
// the reply failed (a refusal, a content filter, a word we do not know) it
// returns StopReasonError and an explanation.
func mapStopReason(api, raw string) (stop, problem string) {
	if api == APIAnthropicMessages {
		switch raw {
		case "end_turn", "pause_turn", "stop_sequence":
			return StopReasonStop, ""
		case "max_tokens":
			return StopReasonLength, ""
		case "tool_use":
			return StopReasonToolUse, ""
		case "refusal":
			return StopReasonError, "the model refused to complete the request (stop_reason refusal)"
		}
		return StopReasonError, fmt.Sprintf("the provider stopped with an unexpected stop_reason %q", raw)
	}
	switch raw {
	case "stop", "end":
		return StopReasonStop, ""
	case "length":
		return StopReasonLength, ""
	case "tool_calls", "function_call":
		return StopReasonToolUse, ""
	}
	return StopReasonError, fmt.Sprintf("the provider stopped with finish_reason %q", raw)
}

// finishArguments turns the streamed argument text of a call into a JSON
// object. Empty text gives init (the arguments announced at the start) or
// "{}". Text that is not a JSON object gives "{}" and a description of the
// problem quoting what the model sent, so the caller can answer the call
// with an error instead of running it.
func finishArguments(raw string, init json.RawMessage) (json.RawMessage, string) {
	trimmed := strings.TrimSpace(raw)
	if trimmed == "" {
		if isJSONObject(init) {
			return compactJSON(init), ""
		}
		return json.RawMessage("{}"), ""
	}
	data := []byte(trimmed)
	if !json.Valid(data) {
		data = escapeControlInStrings(data)
	}
	if !json.Valid(data) {
		var v any
		why := json.Unmarshal(data, &v)
		return json.RawMessage("{}"), fmt.Sprintf("the arguments are not valid JSON (%v).\n\nReceived arguments:\n%s", why, excerpt([]byte(trimmed), 500))
	}
	if !isJSONObject(data) {
		return json.RawMessage("{}"), fmt.Sprintf("the arguments must be a JSON object.\n\nReceived arguments:\n%s", excerpt([]byte(trimmed), 500))
	}
	return compactJSON(data), ""
}

func isJSONObject(b []byte) bool {
	b = bytes.TrimSpace(b)
	return len(b) > 0 && b[0] == '{' && json.Valid(b)
}

func compactJSON(b []byte) json.RawMessage {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return json.RawMessage(b)
	}
	return json.RawMessage(buf.Bytes())
}

// escapeControlInStrings escapes raw control characters (a literal newline
// or tab) inside JSON strings, the most common way models break otherwise
// well-formed arguments.
func escapeControlInStrings(b []byte) []byte {
	out := make([]byte, 0, len(b)+16)
	inString, escaped := false, false
	for _, c := range b {
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case inString && c < 0x20:
			out = append(out, fmt.Sprintf(`\u%04x`, c)...)
			continue
		}
		out = append(out, c)
	}
	return out
}
