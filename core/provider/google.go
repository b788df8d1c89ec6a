package provider

import (
	"encoding/json"
	"fmt"
	"github.com/piwasm/pi/internal/lazyre"
	"strings"
)

// buildGoogleBody returns the body of a Google Generative Language API
// streamGenerateContent request, shaped as the TypeScript harness's Google
// client sends it:
//
//	{"contents":[…],"systemInstruction":{"parts":[{"text":…}]},"generationConfig":{"maxOutputTokens":N,"thinkingConfig":{…}},"tools":[{"functionDeclarations":[…]}]}
//
// The API has no system messages in the conversation: the first system
// message is systemInstruction, and later ones are sent as user text (the
// route never claims mid-history system messages, so the session keeps
// them out of the history). Assistant turns are "model" contents with text,
// thought and functionCall parts (a part's thoughtSignature is sent back
// when the message kept one); tool results are functionResponse parts of a
// user content, consecutive ones in one content. A reasoning model gets
// thinkingConfig: includeThoughts with a discrete thinkingLevel for the
// Gemini 3 and later families, else a thinkingBudget; at "off" a budget of
// 0.
func buildGoogleBody(r Route, req Request) ([]byte, error) {
	o, err := googleObject(r, req)
	if err != nil {
		return nil, err
	}
	return o.bytes(), nil
}

func googleObject(r Route, req Request) (*object, error) {
	if _, err := modelFor(r, req); err != nil {
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
	// Each content is encoded once and kept in the Memo of the message it
	// comes from (a run of tool results: of the first, for as long as the
	// same results follow), so a request copies the history's encodings.
	msgs := closeToolCalls(req.Messages)
	contents := make([][]byte, 0, len(msgs))
	system := ""
	seenSystem := false
	for i := 0; i < len(msgs); {
		m := msgs[i]
		if m.Role == RoleSystem && !seenSystem && len(contents) == 0 {
			system, seenSystem = m.Content, true
			i++
			continue
		}
		j := i + 1
		if m.Role == RoleTool {
			for j < len(msgs) && (msgs[j].Role == RoleTool || googleSendsNothing(msgs[j])) {
				j++
			}
		}
		group := msgs[i:j]
		if enc, ok := m.Memo.formGroup(shapeGoogle, group[1:]); ok {
			if len(enc) > 0 {
				contents = append(contents, enc)
			}
			i = j
			continue
		}
		encs, err := googleContents(group)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.label(), err)
		}
		if len(encs) <= 1 && !groupHasImage(group) {
			var enc []byte
			if len(encs) == 1 {
				enc = encs[0]
			}
			m.Memo.keepGroup(shapeGoogle, enc, group[1:])
		}
		contents = append(contents, encs...)
		i = j
	}
	body := orderedItem{{"contents", nil}}
	if system != "" {
		body = append(body, kv{"systemInstruction", orderedItem{{"parts", []any{map[string]any{"text": system}}}, {"role", "user"}}})
	}
	gen := orderedItem{{"maxOutputTokens", outputCap(r, req)}}
	if r.Reasoning {
		if r.Thinking == "" {
			gen = append(gen, kv{"thinkingConfig", map[string]any{"thinkingBudget": 0}})
		} else {
			level := r.Thinking
			if v, ok := r.ThinkingLevels[level]; ok && v != nil {
				level = strings.ToLower(*v)
			}
			if googleUsesLevels(r.ModelID) {
				switch level {
				case "minimal", "low", "medium", "high":
				default:
					return nil, fmt.Errorf("%s: thinking level %q has no Google equivalent (want minimal, low, medium or high in thinkingLevelMap)", r.label(), level)
				}
				gen = append(gen, kv{"thinkingConfig", orderedItem{{"includeThoughts", true}, {"thinkingLevel", strings.ToUpper(level)}}})
			} else {
				gen = append(gen, kv{"thinkingConfig", orderedItem{{"includeThoughts", true}, {"thinkingBudget", r.thinkingBudget(r.Thinking)}}})
			}
		}
	}
	body = append(body, kv{"generationConfig", gen})
	if len(req.Tools) > 0 {
		var decls []orderedItem
		for _, t := range req.Tools {
			decls = append(decls, orderedItem{{"name", t.Name}, {"description", t.Description}, {"parametersJsonSchema", schemaOf(t)}})
		}
		body = append(body, kv{"tools", []any{map[string]any{"functionDeclarations": decls}}})
	}
	o := &object{members: make([]member, 0, len(body))}
	for _, m := range body {
		if m.k == "contents" {
			if len(contents) == 0 {
				o.set("contents", json.RawMessage("null"))
			} else {
				o.setList("contents", contents)
			}
			continue
		}
		if err := o.setAny(m.k, m.v); err != nil {
			return nil, fmt.Errorf("%s: %w", r.label(), err)
		}
	}
	return o, nil
}

// googleContent is one element of "contents".
type googleContent struct {
	Role  string `json:"role"`
	Parts []any  `json:"parts"`
}

// googleSendsNothing reports whether m, past the first system message, has
// no part to send (an assistant message without text, thinking or calls,
// an empty system message): it then does not come between two tool
// results.
func googleSendsNothing(m Message) bool {
	switch m.Role {
	case RoleAssistant:
		return strings.TrimSpace(m.Thinking) == "" && strings.TrimSpace(m.Content) == "" && len(m.ToolCalls) == 0
	case RoleSystem:
		return m.Content == ""
	}
	return false
}

// googleContents is the encoded contents msgs become: a message's own, or
// for a run of tool results one content of function responses (followed by
// the images a result returned, which end the run). A system message here
// is not the first of the history and goes as the user's text.
func googleContents(msgs []Message) ([][]byte, error) {
	var contents []*googleContent
	for _, m := range msgs {
		switch m.Role {
		case RoleSystem:
			if m.Content != "" {
				contents = append(contents, &googleContent{Role: "user", Parts: []any{map[string]any{"text": m.Content}}})
			}
		case RoleUser:
			var parts []any
			for _, p := range partsOf(m) {
				if p.Type == PartImage {
					parts = append(parts, map[string]any{"inlineData": orderedItem{{"mimeType", p.MimeType}, {"data", p.Data}}})
				} else {
					parts = append(parts, map[string]any{"text": p.Text})
				}
			}
			if len(parts) == 0 {
				parts = []any{map[string]any{"text": ""}}
			}
			contents = append(contents, &googleContent{Role: "user", Parts: parts})
		case RoleAssistant:
			var parts []any
			sig := m.ThinkingSignature
			if strings.HasPrefix(sig, "{") {
				sig = "" // another API's reasoning item: meaningless here
			}
			if strings.TrimSpace(m.Thinking) != "" {
				p := orderedItem{{"thought", true}, {"text", m.Thinking}}
				if sig != "" {
					p = append(p, kv{"thoughtSignature", sig})
				}
				parts = append(parts, p)
			}
			if strings.TrimSpace(m.Content) != "" {
				parts = append(parts, map[string]any{"text": m.Content})
			}
			for _, tc := range m.ToolCalls {
				parts = append(parts, map[string]any{"functionCall": orderedItem{{"name", tc.Name}, {"args", argsOf(tc)}}})
			}
			if len(parts) > 0 {
				contents = append(contents, &googleContent{Role: "model", Parts: parts})
			}
		case RoleTool:
			text := toolResultText(m)
			if text == "" && hasImage(m.Parts) {
				text = toolImageOnlyText
			}
			key := "output"
			if m.IsError {
				key = "error"
			}
			part := map[string]any{"functionResponse": orderedItem{{"name", m.ToolName}, {"response", map[string]any{key: text}}}}
			if n := len(contents); n > 0 && contents[n-1].Role == "user" && isFunctionResponses(contents[n-1].Parts) {
				contents[n-1].Parts = append(contents[n-1].Parts, part)
			} else {
				contents = append(contents, &googleContent{Role: "user", Parts: []any{part}})
			}
			if hasImage(m.Parts) {
				imgs := []any{map[string]any{"text": "Tool result image:"}}
				for _, p := range m.Parts {
					if p.Type == PartImage {
						imgs = append(imgs, map[string]any{"inlineData": orderedItem{{"mimeType", p.MimeType}, {"data", p.Data}}})
					}
				}
				contents = append(contents, &googleContent{Role: "user", Parts: imgs})
			}
		}

	}
	out := make([][]byte, 0, len(contents))
	for _, c := range contents {
		b, err := encodeJSON(c)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

func isFunctionResponses(parts []any) bool {
	for _, p := range parts {
		if m, ok := p.(map[string]any); ok {
			if _, ok := m["functionResponse"]; ok {
				return true
			}
		}
	}
	return false
}

var googleLevelModels = lazyre.New(`gemini-3(\.\d+)?-(pro|flash)|gemini-([4-9]|[1-9]\d)|gemma-?4`)

// googleUsesLevels reports whether the model takes a discrete
// thinkingLevel rather than a thinkingBudget (Gemini 3 and later).
func googleUsesLevels(id string) bool {
	id = strings.ToLower(id)
	return googleLevelModels().MatchString(id) || id == "gemini-flash-latest" || id == "gemini-flash-lite-latest"
}

// googleChunk is one streamed GenerateContentResponse; only what we read.
type googleChunk struct {
	Candidates []struct {
		Content struct {
			Parts []struct {
				Text             *string `json:"text"`
				Thought          bool    `json:"thought"`
				ThoughtSignature string  `json:"thoughtSignature"`
				FunctionCall     *struct {
					ID   string          `json:"id"`
					Name string          `json:"name"`
					Args json.RawMessage `json:"args"`
				} `json:"functionCall"`
			} `json:"parts"`
		} `json:"content"`
		FinishReason string `json:"finishReason"`
	} `json:"candidates"`
	ResponseID    string `json:"responseId"`
	UsageMetadata *struct {
		PromptTokenCount        int `json:"promptTokenCount"`
		CandidatesTokenCount    int `json:"candidatesTokenCount"`
		ThoughtsTokenCount      int `json:"thoughtsTokenCount"`
		CachedContentTokenCount int `json:"cachedContentTokenCount"`
	} `json:"usageMetadata"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Status  string `json:"status"`
	} `json:"error"`
}

// googleStream decodes a streamGenerateContent SSE stream (alt=sse): each
// event is a whole chunk, and the stream simply ends after the last one.
type googleStream struct {
	label    string
	out      *assembler
	text     int
	thinking int
	calls    int
	finished bool
}

func newGoogleStream(label string, out *assembler) *googleStream {
	return &googleStream{label: label, out: out, text: -1, thinking: -1}
}

func (s *googleStream) event(e sseEvent) (bool, error) {
	data := strings.TrimSpace(e.Data)
	if data == "" {
		return false, nil
	}
	var c googleChunk
	if err := json.Unmarshal([]byte(data), &c); err != nil {
		return false, &streamError{Provider: s.label, Reason: fmt.Sprintf("malformed JSON in data line: %v (data: %s)", err, excerpt([]byte(data), 120))}
	}
	if c.Error != nil {
		return false, &streamError{Provider: s.label, Reason: "server reported an error mid-stream: " + c.Error.Message, transient: c.Error.Code == 503 || c.Error.Code == 500 || c.Error.Status == "UNAVAILABLE"}
	}
	if s.out.respID == "" {
		s.out.respID = c.ResponseID // the first one the stream names
	}
	if u := c.UsageMetadata; u != nil {
		s.out.usage = Usage{
			InputTokens:       u.PromptTokenCount - u.CachedContentTokenCount,
			OutputTokens:      u.CandidatesTokenCount + u.ThoughtsTokenCount,
			CacheReadTokens:   u.CachedContentTokenCount,
			ReasoningTokens:   u.ThoughtsTokenCount,
			ReasoningReported: true,
			Reported:          true,
		}
	}
	if len(c.Candidates) == 0 {
		return false, nil
	}
	cand := c.Candidates[0]
	for _, p := range cand.Content.Parts {
		switch {
		case p.FunctionCall != nil:
			s.calls++
			id := p.FunctionCall.ID
			if id == "" {
				id = fmt.Sprintf("%s_%d", p.FunctionCall.Name, s.calls)
			}
			i := s.out.start(blockToolCall, id, p.FunctionCall.Name)
			args := p.FunctionCall.Args
			if len(args) == 0 {
				args = json.RawMessage("{}")
			}
			s.out.delta(i, string(args))
			s.out.end(i)
		case p.Text != nil && p.Thought:
			if s.thinking < 0 || s.out.blocks[s.thinking].ended {
				s.thinking = s.out.start(blockThinking, "", "")
			}
			if p.ThoughtSignature != "" {
				s.out.blocks[s.thinking].sig = p.ThoughtSignature
			}
			s.out.delta(s.thinking, *p.Text)
		case p.Text != nil:
			if s.thinking >= 0 {
				s.out.end(s.thinking)
			}
			if s.text < 0 {
				s.text = s.out.start(blockText, "", "")
			}
			s.out.delta(s.text, *p.Text)
		}
	}
	if cand.FinishReason != "" {
		s.finished = true
		s.out.rawStop = cand.FinishReason
		switch cand.FinishReason {
		case "STOP":
			s.out.stop = StopReasonStop
		case "MAX_TOKENS":
			s.out.stop = StopReasonLength
		default:
			s.out.stop = StopReasonError
			s.out.refusal = fmt.Sprintf("the provider stopped with finishReason %q", cand.FinishReason)
		}
		if s.out.stop == StopReasonStop && s.calls > 0 {
			s.out.stop = StopReasonToolUse
		}
	}
	return false, nil
}

func (s *googleStream) end() error {
	s.out.endAll()
	if !s.finished {
		return &streamError{Provider: s.label, Reason: "stream ended without a finishReason", transient: true}
	}
	return nil
}
