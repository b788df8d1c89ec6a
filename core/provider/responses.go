package provider

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// minResponsesOutput is the smallest max_output_tokens the Responses API
// takes.
const minResponsesOutput = 16

// buildResponsesBody returns the body of an OpenAI Responses API request
// (openai-responses and azure-openai-responses), shaped as the TypeScript
// harness shapes it:
//
//		{"model":…,"input":[…],"stream":true,"store":false,"max_output_tokens":N,"tools":[…],"reasoning":{…},"include":[…]}
//
//	  - system messages are {"role":"system"|"developer","content":"…"} items
//	    (developer for a reasoning model when compat allows, the default);
//	  - user messages carry input_text and input_image parts;
//	  - an assistant message becomes its reasoning item (when its
//	    ThinkingSignature holds one), an output_text message and one
//	    function_call item per call, arguments as a JSON string;
//	  - a tool result is a function_call_output item (images as
//	    input_image parts of the output);
//	  - a reasoning model gets "reasoning": {"effort", "summary":"auto"} and
//	    asks for the encrypted reasoning back; at "off" it gets the map's
//	    "off" value, or "none".
//
// samplingParams come last and win.
func buildResponsesBody(r Route, req Request) ([]byte, error) {
	o, err := buildResponsesObject(r, req)
	if err != nil {
		return nil, err
	}
	return o.bytes(), nil
}

func buildResponsesObject(r Route, req Request) (*object, error) {
	model, err := modelFor(r, req)
	if err != nil {
		return nil, err
	}
	if len(req.Messages) == 0 {
		return nil, fmt.Errorf("%s: request has no messages", r.label())
	}
	if err := checkMessages(r.label(), req.Messages); err != nil {
		return nil, err
	}
	if err := checkTools(r.label(), req.Tools); err != nil {
		return nil, err
	}
	compat := r.Compat
	if compat == nil {
		c := detectCompat(r)
		compat = &c
	}
	sysRole := RoleSystem
	if r.Reasoning && compat.DeveloperRole {
		sysRole = "developer"
	}
	// Each message's items are encoded once and kept in its Memo (with the
	// assistant's number, which the id of its text item carries), so a
	// request copies the history's encodings instead of encoding it again.
	shape := shapeResponses
	if sysRole != RoleSystem {
		shape = shapeResponsesDev
	}
	msgs := closeToolCalls(req.Messages)
	input := make([][]byte, 0, len(msgs))
	assistantN := 0
	for _, m := range msgs {
		pos := 0
		if m.Role == RoleAssistant {
			pos = assistantN
			assistantN++
		}
		enc, ok := m.Memo.formAt(shape, pos)
		if !ok {
			var err error
			if enc, err = responsesItems(m, sysRole, pos); err != nil {
				return nil, fmt.Errorf("%s: %w", r.label(), err)
			}
			if !hasImage(m.Parts) {
				m.Memo.keepAt(shape, pos, enc)
			}
		}
		if len(enc) > 0 {
			input = append(input, enc)
		}
	}
	body := orderedItem{{"model", model}, {"input", nil}, {"stream", true}, {"store", false}}
	if req.SessionID != "" && req.CacheRetention != CacheNone && compat.PromptCacheKeyMode != "disabled" {
		// The Responses API keys its prompt cache on the session, on any
		// host, as the other harness sends it.
		body = append(body, kv{"prompt_cache_key", firstRunes(req.SessionID, 64)})
	}
	if compat.MaxOutputTokens {
		body = append(body, kv{"max_output_tokens", max(outputCap(r, req), minResponsesOutput)})
	}
	if len(req.Tools) > 0 {
		var tools []orderedItem
		for _, t := range req.Tools {
			tools = append(tools, orderedItem{{"type", "function"}, {"name", t.Name}, {"description", t.Description}, {"parameters", schemaOf(t)}, {"strict", false}})
		}
		body = append(body, kv{"tools", tools})
	}
	if r.Reasoning {
		if r.Thinking != "" {
			effort, ok := r.effortFor(r.Thinking)
			if ok {
				body = append(body, kv{"reasoning", orderedItem{{"effort", effort}, {"summary", "auto"}}}, kv{"include", []string{"reasoning.encrypted_content"}})
			}
		} else if _, _, null := r.offValue(); !null {
			off, _, _ := r.offValue()
			body = append(body, kv{"reasoning", orderedItem{{"effort", firstNonEmpty(off, "none")}}})
		}
	}
	// samplingParams replace a member in place or go last, as in the other
	// harness; the members are encoded once, never decoded again.
	o := &object{members: make([]member, 0, len(body)+len(r.SamplingParams))}
	for _, m := range body {
		if m.k == "input" {
			if len(input) == 0 {
				o.set("input", json.RawMessage("null"))
			} else {
				o.setList("input", input)
			}
			continue
		}
		if err := o.setAny(m.k, m.v); err != nil {
			return nil, fmt.Errorf("%s: %w", r.label(), err)
		}
	}
	for _, k := range sortedKeys(r.SamplingParams) {
		o.set(k, jsNumber(r.SamplingParams[k]))
	}
	return o, nil
}

// responsesItems is the input items message m becomes, encoded and joined
// by commas (empty when it sends none); pos numbers an assistant message
// among the history's assistant messages.
func responsesItems(m Message, sysRole string, assistantN int) ([]byte, error) {
	var items []any
	switch m.Role {
	case RoleSystem:
		if m.Content != "" {
			items = append(items, orderedItem{{"role", sysRole}, {"content", m.Content}})
		}
	case RoleUser:
		var parts []orderedItem
		for _, p := range partsOf(m) {
			if p.Type == PartImage {
				parts = append(parts, orderedItem{{"type", "input_image"}, {"detail", "auto"}, {"image_url", "data:" + p.MimeType + ";base64," + p.Data}})
			} else {
				parts = append(parts, orderedItem{{"type", "input_text"}, {"text", p.Text}})
			}
		}
		if m.Parts == nil && m.Content == "" {
			parts = []orderedItem{{{"type", "input_text"}, {"text", ""}}}
		}
		if len(parts) > 0 {
			items = append(items, orderedItem{{"role", "user"}, {"content", parts}})
		}
	case RoleAssistant:
		if sig := strings.TrimSpace(m.ThinkingSignature); strings.HasPrefix(sig, "{") && json.Valid([]byte(sig)) {
			items = append(items, json.RawMessage(sig))
		}
		if strings.TrimSpace(m.Content) != "" {
			id := "msg_pi_" + strconv.Itoa(assistantN)
			items = append(items, orderedItem{
				{"type", "message"}, {"role", "assistant"},
				{"content", []orderedItem{{{"type", "output_text"}, {"text", m.Content}, {"annotations", []any{}}}}},
				{"status", "completed"}, {"id", id},
			})
		}
		for _, tc := range m.ToolCalls {
			callID, _, _ := strings.Cut(tc.ID, "|")
			items = append(items, orderedItem{{"type", "function_call"}, {"call_id", callID}, {"name", tc.Name}, {"arguments", string(argsOf(tc))}})
		}
	case RoleTool:
		callID, _, _ := strings.Cut(m.ToolCallID, "|")
		var output any = toolResultText(m)
		if hasImage(m.Parts) {
			var parts []orderedItem
			for _, p := range m.Parts {
				if p.Type == PartImage {
					parts = append(parts, orderedItem{{"type", "input_image"}, {"detail", "auto"}, {"image_url", "data:" + p.MimeType + ";base64," + p.Data}})
				} else if p.Text != "" {
					parts = append(parts, orderedItem{{"type", "input_text"}, {"text", p.Text}})
				}
			}
			output = parts
		}
		items = append(items, orderedItem{{"type", "function_call_output"}, {"call_id", callID}, {"output", output}})
	}
	var out []byte
	for i, it := range items {
		b, err := encodeJSON(it)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, b...)
	}
	return out, nil
}

// toolResultText is a tool result's text: its text parts joined by
// newlines, or Content.
func toolResultText(m Message) string {
	if m.Parts == nil {
		return m.Content
	}
	var texts []string
	for _, p := range m.Parts {
		if p.Type == PartText && p.Text != "" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// kv and orderedItem encode a JSON object with its members in order.
type kv struct {
	k string
	v any
}

type orderedItem []kv

func (o orderedItem) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, err := encodeJSON(m.k)
		if err != nil {
			return nil, err
		}
		vb, err := encodeJSON(m.v)
		if err != nil {
			return nil, err
		}
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vb)
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
}

// responsesEvent is one streamed Responses API event; only what we read.
type responsesEvent struct {
	Type        string          `json:"type"`
	ItemID      string          `json:"item_id"`
	OutputIndex *int            `json:"output_index"`
	Delta       string          `json:"delta"`
	Item        json.RawMessage `json:"item"`
	Response    *struct {
		ID                string `json:"id"`
		Status            string `json:"status"`
		IncompleteDetails *struct {
			Reason string `json:"reason"`
		} `json:"incomplete_details"`
		Error *struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
		Usage *struct {
			InputTokens        int `json:"input_tokens"`
			OutputTokens       int `json:"output_tokens"`
			InputTokensDetails *struct {
				CachedTokens int `json:"cached_tokens"`
			} `json:"input_tokens_details"`
			OutputTokensDetails *struct {
				ReasoningTokens int `json:"reasoning_tokens"`
			} `json:"output_tokens_details"`
		} `json:"usage"`
	} `json:"response"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

type responsesItem struct {
	Type      string `json:"type"`
	ID        string `json:"id"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// responsesStream decodes a Responses API event stream into the assembler.
type responsesStream struct {
	label    string
	out      *assembler
	api      string
	byOutput map[int]int // output_index → content index
	done     bool
}

func newResponsesStream(label, api string, out *assembler) *responsesStream {
	return &responsesStream{label: label, api: api, out: out, byOutput: map[int]int{}}
}

func (s *responsesStream) block(ev responsesEvent, kind string) int {
	idx := -1
	if ev.OutputIndex != nil {
		idx = *ev.OutputIndex
	}
	if i, ok := s.byOutput[idx]; ok && s.out.blocks[i].kind == kind {
		return i
	}
	i := s.out.start(kind, "", "")
	s.byOutput[idx] = i
	return i
}

func (s *responsesStream) event(e sseEvent) (bool, error) {
	data := strings.TrimSpace(e.Data)
	if data == "" || data == "[DONE]" {
		return false, nil
	}
	var ev responsesEvent
	if err := json.Unmarshal([]byte(data), &ev); err != nil {
		return false, &streamError{Provider: s.label, Reason: fmt.Sprintf("malformed JSON in data line: %v (data: %s)", err, excerpt([]byte(data), 120))}
	}
	switch ev.Type {
	case "response.output_item.added":
		var it responsesItem
		_ = json.Unmarshal(ev.Item, &it)
		if it.Type == "function_call" && ev.OutputIndex != nil {
			i := s.out.start(blockToolCall, it.CallID, it.Name)
			s.byOutput[*ev.OutputIndex] = i
			if it.Arguments != "" {
				s.out.delta(i, it.Arguments)
			}
		}
	case "response.output_text.delta", "response.refusal.delta":
		s.out.delta(s.block(ev, blockText), ev.Delta)
	case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
		s.out.delta(s.block(ev, blockThinking), ev.Delta)
	case "response.function_call_arguments.delta":
		if ev.OutputIndex != nil {
			if i, ok := s.byOutput[*ev.OutputIndex]; ok {
				s.out.delta(i, ev.Delta)
			}
		}
	case "response.output_item.done":
		var it responsesItem
		_ = json.Unmarshal(ev.Item, &it)
		if ev.OutputIndex == nil {
			break
		}
		i, ok := s.byOutput[*ev.OutputIndex]
		if it.Type == "reasoning" {
			if !ok {
				i = s.block(ev, blockThinking)
			}
			// The whole item (with its encrypted content) is what must be
			// sent back next turn.
			s.out.blocks[i].sig = string(compactJSON(ev.Item))
		}
		if ok || it.Type == "reasoning" {
			s.out.end(i)
		}
	case "response.created":
		if ev.Response != nil {
			s.out.respID = ev.Response.ID
		}
	case "response.completed", "response.incomplete", "response.done":
		// The established harness prices the reply here, usage or not.
		s.out.usage.Reported = true
		if ev.Response != nil {
			if ev.Response.ID != "" {
				s.out.respID = ev.Response.ID
			}
			if u := ev.Response.Usage; u != nil {
				s.out.usage.ReasoningReported = true
				if d := u.OutputTokensDetails; d != nil {
					s.out.usage.ReasoningTokens = d.ReasoningTokens
				}
				s.out.usage.InputTokens = u.InputTokens
				s.out.usage.OutputTokens = u.OutputTokens
				if u.InputTokensDetails != nil {
					s.out.usage.CacheReadTokens = u.InputTokensDetails.CachedTokens
					s.out.usage.InputTokens -= u.InputTokensDetails.CachedTokens
				}
			}
			s.out.rawStop = ev.Response.Status
			if ev.Response.Status == "incomplete" && ev.Response.IncompleteDetails != nil {
				// "incomplete.max_output_tokens", as the established
				// harness records it.
				s.out.rawStop = ev.Response.Status + "." + ev.Response.IncompleteDetails.Reason
				switch ev.Response.IncompleteDetails.Reason {
				case "max_output_tokens":
					s.out.stop = StopReasonLength
				default:
					s.out.stop = StopReasonError
					s.out.refusal = "the response is incomplete: " + ev.Response.IncompleteDetails.Reason
				}
			}
		}
		s.done = true
		s.out.endAll()
		return true, nil
	case "response.failed":
		msg := "the response failed"
		if ev.Response != nil {
			s.out.rawStop = ev.Response.Status
		}
		if ev.Response != nil && ev.Response.Error != nil {
			msg += ": " + ev.Response.Error.Message
		}
		return false, &streamError{Provider: s.label, Reason: msg}
	case "error":
		return false, &streamError{Provider: s.label, Reason: "server reported an error mid-stream: " + firstNonEmpty(ev.Message, ev.Code, data), transient: ev.Code == "server_error" || strings.Contains(ev.Code, "overloaded")}
	}
	return false, nil
}

func (s *responsesStream) end() error {
	if !s.done {
		return &streamError{Provider: s.label, Reason: "stream ended before response.completed", transient: true}
	}
	return nil
}
