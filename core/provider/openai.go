package provider

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// openAIMessage is one message; Content is a string, a list of parts, or
// null (an assistant message that only calls tools).
type openAIMessage struct {
	Role             string           `json:"role"`
	Content          any              `json:"content"`
	ReasoningContent string           `json:"reasoning_content,omitempty"`
	Reasoning        string           `json:"reasoning,omitempty"`
	ReasoningText    string           `json:"reasoning_text,omitempty"`
	ToolCalls        []openAIToolCall `json:"tool_calls,omitempty"`
	ToolCallID       string           `json:"tool_call_id,omitempty"`
}

type openAIPart struct {
	Type     string          `json:"type"`
	Text     *string         `json:"text,omitempty"`
	ImageURL *openAIImageURL `json:"image_url,omitempty"`
}

type openAIImageURL struct {
	URL string `json:"url"`
}

type openAIToolCall struct {
	ID       string         `json:"id"`
	Type     string         `json:"type"`
	Function openAIFunction `json:"function"`
}

type openAIFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type openAITool struct {
	Type     string          `json:"type"`
	Function openAIToolSpecs `json:"function"`
}

type openAIToolSpecs struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

type openAIStreamOp struct {
	IncludeUsage bool `json:"include_usage"`
}

// Texts sent where a tool result has no text of its own, and before the
// images tool results return (chat completions takes images only in user
// messages).
const (
	toolImageOnlyText    = "(see attached image)"
	toolNoOutputText     = "(no tool output)"
	toolImagesLeadInText = "Attached image(s) from tool result:"
)

// buildOpenAIBody returns the JSON body of an OpenAI chat completions
// request:
//
//	{"model":…,"messages":[…],"stream":true,"stream_options":{"include_usage":true},"max_completion_tokens":N,"tools":[…]}
//
// Messages are sent in order, shaped as the established harness shapes them:
//
//   - System messages stay where they are (this API accepts them
//     mid-conversation), empty ones included, so the body is a faithful
//     image of the history the session projected.
//   - A user message is a string, or a list of text and image_url parts
//     (images as data: URLs) when it has Parts; empty text parts are left
//     out and a message left with no part is dropped.
//   - An assistant message carries its text (null when it only calls tools),
//     its calls as tool_calls with the arguments as a JSON string, and its
//     thinking in the reasoning field it was streamed in (when
//     ThinkingSignature names one). One with neither text nor calls is
//     dropped: servers reject it.
//   - Each tool result is {"role":"tool","tool_call_id":…,"content":"…"},
//     its text parts joined by newlines; a run of results that returned
//     images is followed by one user message carrying them.
//   - A call left without a result gets an error result, as both APIs
//     reject unanswered calls.
//
// "prompt_cache_key" is req.SessionID on api.openai.com and
// "prompt_cache_retention" is "24h" for CacheLong, as the established
// harness sends them; neither appears with CacheNone.
// "stream" and "stream_options" appear only when req.Stream is set. The
// output cap is always sent (see outputCap) under Route.MaxTokensField
// ("max_completion_tokens" by default, or "max_tokens"). "tools" lists
// req.Tools in order, the schemas as given (compacted). The output is
// deterministic: equal inputs give equal bytes. It fails on an empty message
// list, an unknown role, a malformed message or tool, a missing model id or
// an unknown MaxTokensField.
func buildOpenAIBody(route Route, req Request) ([]byte, error) {
	o, err := openAIObject(route, req)
	if err != nil {
		return nil, err
	}
	return o.bytes(), nil
}

func openAIObject(route Route, req Request) (*object, error) {
	model, err := modelFor(route, req)
	if err != nil {
		return nil, err
	}
	if len(req.Messages) == 0 {
		return nil, fmt.Errorf("%s: request has no messages", route.label())
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
	msgs, err := openAIMessageList(closeToolCalls(req.Messages), openAIDeveloperRole(route))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", route.label(), err)
	}
	// The members in wire order, each written once; the compat settings
	// then add or drop fields in place.
	o := &object{members: make([]member, 0, 12)}
	str := func(s string) json.RawMessage { b, _ := encodeJSON(s); return b }
	o.set("model", str(model))
	o.setList("messages", msgs)
	if req.Stream {
		o.set("stream", json.RawMessage("true"))
	}
	if req.CacheRetention != CacheNone && req.SessionID != "" && strings.Contains(route.BaseURL, "api.openai.com") {
		o.set("prompt_cache_key", str(firstRunes(req.SessionID, 64)))
	}
	if req.CacheRetention == CacheLong {
		o.set("prompt_cache_retention", str("24h"))
	}
	if req.Stream {
		o.set("stream_options", json.RawMessage(`{"include_usage":true}`))
	}
	limit := outputCap(route, req)
	switch route.MaxTokensField {
	case "", "max_completion_tokens":
		o.set("max_completion_tokens", json.RawMessage(strconv.Itoa(limit)))
	case "max_tokens":
		o.set("max_tokens", json.RawMessage(strconv.Itoa(limit)))
	default:
		return nil, fmt.Errorf("%s: unknown maxTokensField %q (want max_completion_tokens or max_tokens)", route.label(), route.MaxTokensField)
	}
	if len(req.Tools) > 0 {
		enc, err := req.ToolsMemo.encoded(shapeOpenAI, req.Tools, func() ([]byte, error) {
			tools := make([]openAITool, 0, len(req.Tools))
			for _, t := range req.Tools {
				tools = append(tools, openAITool{Type: "function", Function: openAIToolSpecs{Name: t.Name, Description: t.Description, Parameters: schemaOf(t)}})
			}
			return encodeJSON(tools)
		})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", route.label(), err)
		}
		o.set("tools", enc)
	}
	if err := applyOpenAICompat(route, o); err != nil {
		return nil, err
	}
	return o, nil
}

// firstRunes is s cut to at most n characters.
func firstRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// openAIMessageList encodes msgs as the elements of "messages". A message
// with a Memo is encoded once per shape and copied from then on (one with
// images is encoded each time: its images may move into the user message
// that follows a run of tool results).
func openAIMessageList(msgs []Message, developer bool) ([][]byte, error) {
	shape := shapeOpenAI
	if developer {
		shape = shapeOpenAIDev
	}
	out := make([][]byte, 0, len(msgs)+1)
	var images []openAIPart
	for i := range msgs {
		m := &msgs[i] // not a copy: this runs over the whole history every request
		enc, ok := m.Memo.form(shape)
		if !ok {
			om, send, imgs := openAIMessageOf(*m, developer)
			images = append(images, imgs...)
			enc = []byte{}
			if send {
				var err error
				if enc, err = encodeJSON(om); err != nil {
					return nil, fmt.Errorf("message %d: %w", i, err)
				}
			}
			if len(imgs) == 0 && !hasImage(m.Parts) {
				m.Memo.keep(shape, enc)
			}
		}
		if len(enc) > 0 {
			out = append(out, enc)
		}
		if m.Role == RoleTool && len(images) > 0 && (i+1 == len(msgs) || msgs[i+1].Role != RoleTool) {
			lead := toolImagesLeadInText
			parts := append([]openAIPart{{Type: "text", Text: &lead}}, images...)
			b, err := encodeJSON(openAIMessage{Role: RoleUser, Content: parts})
			if err != nil {
				return nil, fmt.Errorf("message %d: %w", i, err)
			}
			out = append(out, b)
			images = nil
		}
	}
	return out, nil
}

// openAIMessageOf is one message as chat completions takes it; send is
// false when it is left out. A tool result's images come back separately:
// they travel in the user message after the run of results.
func openAIMessageOf(m Message, developer bool) (om openAIMessage, send bool, images []openAIPart) {
	switch m.Role {
	case RoleSystem:
		role := m.Role
		if developer {
			role = "developer"
		}
		return openAIMessage{Role: role, Content: m.Content}, true, nil
	case RoleUser:
		if m.Parts == nil {
			return openAIMessage{Role: m.Role, Content: m.Content}, true, nil
		}
		if parts := openAIParts(m.Parts); len(parts) > 0 {
			return openAIMessage{Role: m.Role, Content: parts}, true, nil
		}
		return om, false, nil
	case RoleAssistant:
		am := openAIMessage{Role: m.Role}
		if strings.TrimSpace(m.Content) != "" {
			am.Content = m.Content
		}
		if strings.TrimSpace(m.Thinking) != "" {
			switch m.ThinkingSignature {
			case "reasoning_content":
				am.ReasoningContent = m.Thinking
			case "reasoning":
				am.Reasoning = m.Thinking
			case "reasoning_text":
				am.ReasoningText = m.Thinking
			}
		}
		for _, tc := range m.ToolCalls {
			am.ToolCalls = append(am.ToolCalls, openAIToolCall{ID: tc.ID, Type: "function", Function: openAIFunction{Name: tc.Name, Arguments: string(argsOf(tc))}})
		}
		if am.Content == nil && len(am.ToolCalls) == 0 {
			return om, false, nil
		}
		return am, true, nil
	case RoleTool:
		parts := partsOf(m)
		var texts []string
		for _, p := range parts {
			if p.Type == PartText {
				texts = append(texts, p.Text)
			} else {
				images = append(images, openAIImagePart(p))
			}
		}
		text := strings.Join(texts, "\n")
		if strings.TrimSpace(text) == "" {
			text = toolNoOutputText
			if hasImage(parts) {
				text = toolImageOnlyText
			}
		}
		return openAIMessage{Role: RoleTool, Content: text, ToolCallID: m.ToolCallID}, true, images
	}
	return om, false, nil
}

func openAIParts(parts []Part) []openAIPart {
	out := make([]openAIPart, 0, len(parts))
	for _, p := range parts {
		if p.Type == PartText {
			if p.Text == "" {
				continue
			}
			out = append(out, openAIPart{Type: "text", Text: &p.Text})
			continue
		}
		out = append(out, openAIImagePart(p))
	}
	return out
}

func openAIImagePart(p Part) openAIPart {
	return openAIPart{Type: "image_url", ImageURL: &openAIImageURL{URL: "data:" + p.MimeType + ";base64," + p.Data}}
}

// openAIChunk is one streamed chat completion chunk; only what we read.
type openAIChunk struct {
	Choices []openAIChoice `json:"choices"`
	Usage   *openAIUsage   `json:"usage"`
	Error   *apiErrorBody  `json:"error"`
	// ID and Model, as JSON: every chunk repeats them, and only the first
	// is decoded (see openAIStream.identify).
	ID    json.RawMessage `json:"id"`
	Model json.RawMessage `json:"model"`
}

type openAIChoice struct {
	Delta        openAIDelta  `json:"delta"`
	FinishReason *string      `json:"finish_reason"`
	Usage        *openAIUsage `json:"usage"`
}

type openAIDelta struct {
	Content          *string          `json:"content"`
	ReasoningContent json.RawMessage  `json:"reasoning_content"`
	Reasoning        json.RawMessage  `json:"reasoning"`
	ReasoningText    json.RawMessage  `json:"reasoning_text"`
	ToolCalls        []openAIToolPart `json:"tool_calls"`
}

// openAIToolPart is one streamed fragment of a tool call.
type openAIToolPart struct {
	Index    *int            `json:"index"`
	ID       string          `json:"id"`
	Function *openAIFuncPart `json:"function"`
}

type openAIFuncPart struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type openAIUsage struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	PromptTokensDetails *struct {
		CachedTokens     *int `json:"cached_tokens"`
		CacheWriteTokens int  `json:"cache_write_tokens"`
	} `json:"prompt_tokens_details"`
	PromptCacheHitTokens *int `json:"prompt_cache_hit_tokens"`
	CachedTokens         *int `json:"cached_tokens"`
	// The reasoning part of CompletionTokens: OpenAI reports it in the
	// details, some compatible servers beside the other counts.
	CompletionTokensDetails struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
	ReasoningTokens int `json:"reasoning_tokens"`
	// What OpenRouter billed (decoded by json.Unmarshal: the chunk
	// decoder passes chunks with these members on).
	Cost        json.RawMessage `json:"cost"`
	IsBYOK      *bool           `json:"is_byok"`
	CostDetails *struct {
		UpstreamInferenceCost            json.RawMessage `json:"upstream_inference_cost"`
		UpstreamInferencePromptCost      json.RawMessage `json:"upstream_inference_prompt_cost"`
		UpstreamInferenceCompletionsCost json.RawMessage `json:"upstream_inference_completions_cost"`
	} `json:"cost_details"`
}

// billed is the total OpenRouter says it billed for the reply, as the
// established harness reads it: the cost alone when the key is
// OpenRouter's, plus the upstream provider's cost when the user brought
// their own key (BYOK); ok is false when the accounting is missing or not
// valid.
func (u *openAIUsage) billed() (total float64, ok bool) {
	cost, ok := validCost(u.Cost)
	if !ok || u.IsBYOK == nil {
		return 0, false
	}
	if !*u.IsBYOK {
		return cost, true
	}
	d := u.CostDetails
	if d == nil || len(d.UpstreamInferenceCost) == 0 {
		return 0, false
	}
	upstream, ok := validCost(d.UpstreamInferenceCost)
	if string(d.UpstreamInferenceCost) == "null" {
		p, pok := validCost(d.UpstreamInferencePromptCost)
		c, cok := validCost(d.UpstreamInferenceCompletionsCost)
		upstream, ok = p+c, pok && cok
	}
	if !ok {
		return 0, false
	}
	return cost + upstream, true
}

// validCost reads a cost that is a finite number of at least zero.
func validCost(raw json.RawMessage) (float64, bool) {
	var f float64
	if len(raw) == 0 || json.Unmarshal(raw, &f) != nil || f < 0 || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// usage converts the counts; servers put the cache hits in one of three
// places, and InputTokens excludes them.
func (u *openAIUsage) usage() Usage {
	read, write := 0, 0
	switch {
	case u.PromptTokensDetails != nil && u.PromptTokensDetails.CachedTokens != nil:
		read = *u.PromptTokensDetails.CachedTokens
	case u.PromptCacheHitTokens != nil:
		read = *u.PromptCacheHitTokens
	case u.CachedTokens != nil:
		read = *u.CachedTokens
	}
	if u.PromptTokensDetails != nil {
		write = u.PromptTokensDetails.CacheWriteTokens
	}
	reasoning := u.CompletionTokensDetails.ReasoningTokens
	if reasoning == 0 {
		reasoning = u.ReasoningTokens
	}
	return Usage{
		InputTokens:       max(0, u.PromptTokens-read-write),
		OutputTokens:      u.CompletionTokens,
		CacheReadTokens:   read,
		CacheWriteTokens:  write,
		ReasoningTokens:   reasoning,
		Reported:          true,
		ReasoningReported: true,
	}
}

// apiErrorBody is the error object both APIs use.
type apiErrorBody struct {
	Type    string `json:"type"`
	Code    any    `json:"code"`
	Message string `json:"message"`
}

func (e *apiErrorBody) String() string {
	var parts []string
	if e.Type != "" {
		parts = append(parts, e.Type)
	}
	if e.Code != nil && fmt.Sprint(e.Code) != "" {
		parts = append(parts, fmt.Sprint(e.Code))
	}
	s := strings.Join(parts, "/")
	if e.Message != "" {
		if s != "" {
			s += ": "
		}
		s += e.Message
	}
	if s == "" {
		s = "unspecified error"
	}
	return s
}

// transient reports whether the error says the server is busy rather than
// that the request is wrong.
func (e *apiErrorBody) transient() bool {
	s := strings.ToLower(e.Type + " " + fmt.Sprint(e.Code))
	for _, w := range []string{"overloaded", "rate_limit", "server_error", "api_error", "timeout", "unavailable", "429", "500", "502", "503", "504", "529"} {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// openAIStream folds chat completion chunks into an assembler.
type openAIStream struct {
	label    string
	out      *assembler
	finished bool           // a finish_reason arrived
	done     bool           // [DONE] arrived
	text     int            // content index of the text block, -1 before it starts
	thinking int            // content index of the thinking block, -1 before it starts
	byIndex  map[int]int    // stream index → content index
	byID     map[string]int // call id → content index
	chunk    openAIChunk    // the chunk being decoded, reused
}

func newOpenAIStream(label string, out *assembler) *openAIStream {
	return &openAIStream{label: label, out: out, text: -1, thinking: -1, byIndex: map[int]int{}, byID: map[string]int{}}
}

// identify takes the response's id and model from the first chunk that
// names them, as the established harness does; the chunks after repeat
// them and are only compared, without decoding or copying.
func (s *openAIStream) identify(c *openAIChunk) {
	if s.out.respID == "" && len(c.ID) > 0 {
		s.out.respID = rawString(c.ID)
	}
	if s.out.respModel == "" && len(c.Model) > 0 && !rawStringIs(c.Model, s.out.asked) {
		s.out.answeredBy(rawString(c.Model))
	}
}

// priceBilled records what OpenRouter billed, when the route is
// OpenRouter's and the usage carries valid accounting.
func (s *openAIStream) priceBilled(u *openAIUsage) {
	if !s.out.openRouter {
		return
	}
	if total, ok := u.billed(); ok {
		s.out.usage.BilledTotal, s.out.usage.Billed = total, true
	}
}

// rawString is the string raw JSON holds; "" for another value.
func rawString(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// rawStringIs reports whether raw JSON is the string s (written without
// escapes, as servers write model names; an escaped one is decoded).
func rawStringIs(raw json.RawMessage, s string) bool {
	if n := len(raw); n >= 2 && raw[0] == '"' && raw[n-1] == '"' && bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1:n-1]) == s
	}
	return rawString(raw) == s
}

// event handles one SSE event; it reports whether the stream is over.
func (s *openAIStream) event(ev sseEvent) (bool, error) {
	data := ev.raw
	if data == nil {
		data = []byte(ev.Data)
	}
	data = bytes.TrimSpace(data)
	if string(data) == "[DONE]" {
		s.done = true
		s.out.endAll()
		return true, nil
	}
	if len(data) == 0 {
		return false, nil
	}
	// The chunk is the stream's, reused from event to event (nothing keeps
	// it: what the assembler takes is copied out).
	c := &s.chunk
	*c = openAIChunk{Choices: c.Choices[:0]}
	if !decodeOpenAIChunk(data, c) {
		*c = openAIChunk{}
		if err := json.Unmarshal(data, c); err != nil {
			return false, &streamError{Provider: s.label, Reason: fmt.Sprintf("malformed JSON in data line: %v (data: %s)", err, excerpt(data, 120))}
		}
	}
	if c.Error != nil {
		return false, &streamError{Provider: s.label, Reason: "server reported an error mid-stream: " + c.Error.String(), transient: c.Error.transient()}
	}
	s.identify(c)
	if c.Usage != nil {
		s.out.usage = c.Usage.usage()
		s.priceBilled(c.Usage)
	}
	if len(c.Choices) == 0 {
		return false, nil
	}
	ch := &c.Choices[0]
	if c.Usage == nil && ch.Usage != nil {
		s.out.usage = ch.Usage.usage()
		s.priceBilled(ch.Usage)
	}
	if ch.FinishReason != nil && *ch.FinishReason != "" {
		s.out.setStop(APIOpenAICompletions, *ch.FinishReason)
		s.finished = true
	}
	d := &ch.Delta
	// Reasoning first: a proxy may put reasoning and answer in one delta, and
	// the thinking block must come before the text block.
	for _, f := range []struct {
		name string
		raw  json.RawMessage
	}{{"reasoning_content", d.ReasoningContent}, {"reasoning", d.Reasoning}, {"reasoning_text", d.ReasoningText}} {
		if len(f.raw) == 0 {
			continue
		}
		// Declared only here: json.Unmarshal takes its address, so it is
		// allocated where it is declared, which before the check above
		// cost every chunk three allocations for fields that were absent.
		var text string
		if json.Unmarshal(f.raw, &text) != nil || text == "" {
			continue
		}
		if s.thinking < 0 {
			s.thinking = s.out.start(blockThinking, "", "")
			s.out.blocks[s.thinking].sig = f.name
		}
		s.out.delta(s.thinking, text)
		break
	}
	if d.Content != nil && *d.Content != "" {
		if s.text < 0 {
			s.text = s.out.start(blockText, "", "")
		}
		s.out.delta(s.text, *d.Content)
	}
	for _, tp := range d.ToolCalls {
		s.toolPart(tp)
	}
	return false, nil
}

// toolPart adds one tool-call fragment: calls are told apart by their stream
// index (several may be interleaved), else by id.
func (s *openAIStream) toolPart(tp openAIToolPart) {
	name, args := "", ""
	if tp.Function != nil {
		name, args = tp.Function.Name, tp.Function.Arguments
	}
	// The index, when the server sends one, is what tells calls apart: a
	// model that reuses an id still made two calls.
	i, ok := -1, false
	if tp.Index != nil {
		i, ok = s.byIndex[*tp.Index]
	} else if tp.ID != "" {
		i, ok = s.byID[tp.ID]
	}
	if !ok {
		i = s.out.start(blockToolCall, tp.ID, name)
		if tp.ID != "" {
			s.byID[tp.ID] = i
		}
		if tp.Index != nil {
			s.byIndex[*tp.Index] = i
		}
	}
	b := s.out.blocks[i]
	if tp.ID != "" {
		// An id that comes after the call started (the start gave it one of
		// pi's) still finds the call when a later fragment has no index.
		s.byID[tp.ID] = i
	}
	if b.name == "" && name != "" {
		b.name = name
	}
	s.out.delta(i, args)
}

// end is called when the body ends without [DONE]. A stream that already
// delivered its finish_reason is accepted (several compatible servers omit
// [DONE]); anything else was cut short.
func (s *openAIStream) end() error {
	if s.done || s.finished {
		s.out.endAll()
		return nil
	}
	return &streamError{Provider: s.label, Reason: "stream ended before a finish_reason or [DONE] (connection cut short?)"}
}
