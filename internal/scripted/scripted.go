package scripted

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Call is one tool call of a scripted reply. Args is the JSON object of
// arguments, sent in fragments.
type Call struct {
	ID   string          `json:"id,omitempty"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
	// RawArgs, when set, is sent as the arguments text instead of Args,
	// so a script can send arguments that are not JSON at all.
	RawArgs string `json:"rawArgs,omitempty"`
}

// Reply is one scripted assistant message. Stop overrides the stop reason
// ("length" to test a cut-off reply; any other value is sent as the wire's
// own finish_reason or stop_reason, to test one a harness does not know); Status, when non-zero, answers with
// that HTTP status instead (and the reply is tried again on the next
// request, so retries can be tested).
type Reply struct {
	Thinking string `json:"thinking,omitempty"`
	Text     string `json:"text,omitempty"`
	Calls    []Call `json:"calls,omitempty"`
	Stop     string `json:"stop,omitempty"`
	Status   int    `json:"status,omitempty"`
	// DelayMs pauses after each fragment, so a test can interrupt a reply
	// while it streams.
	DelayMs int `json:"delayMs,omitempty"`
	// PromptTokens, when non-zero, is the input-token count the reply's
	// usage reports (100 otherwise), so a test can make a harness believe
	// its context is full.
	PromptTokens int `json:"promptTokens,omitempty"`
	// CacheRead and CacheWrite are the prompt tokens the Anthropic
	// usage reports read from and written to the prompt cache (on top
	// of PromptTokens, as that API counts them), so a test can show a
	// cache hit or miss.
	CacheRead  int `json:"cacheRead,omitempty"`
	CacheWrite int `json:"cacheWrite,omitempty"`
	// Error is the error message sent with Status (a provider's
	// "maximum context length" wording, say); empty: a generic one.
	Error string `json:"error,omitempty"`
}

func (r Reply) prompt() int {
	if r.PromptTokens > 0 {
		return r.PromptTokens
	}
	return 100
}

// Server answers requests with the replies of its script, in order. When
// the script runs out it answers with Fallback text.
type Server struct {
	Replies  []Reply
	Fallback string
	// FallbackPromptTokens is the prompt-token count Fallback replies
	// report (0: the default).
	FallbackPromptTokens int
	// Chunk is the size of the fragments text and arguments are split into
	// (0: 7 bytes, small enough to cut tokens and JSON in odd places).
	Chunk int
	// Restart plays the script from the top whenever a request starts a
	// conversation (it carries no assistant message), so one server can
	// answer repeated runs of a benchmark.
	Restart bool
	// Log, when set, receives every request body as one line.
	Log io.Writer

	mu       sync.Mutex
	next     int
	retrying bool // the last answer was a scripted status: the next request is a retry, not a new run
	requests []json.RawMessage
}

// Requests returns the request bodies received so far.
func (s *Server) Requests() []json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]json.RawMessage(nil), s.requests...)
}

// Served is how many script replies were used.
func (s *Server) Served() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.next
}

// ServeHTTP answers POST .../chat/completions, .../messages and .../responses.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil || r.Method != http.MethodPost {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	anthropic := strings.HasSuffix(r.URL.Path, "/messages")
	responses := strings.HasSuffix(r.URL.Path, "/responses")
	if !anthropic && !responses && !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.NotFound(w, r)
		return
	}
	s.mu.Lock()
	if s.Restart && !s.retrying && !hasAssistant(body) {
		s.next = 0
		s.requests = nil
	}
	s.requests = append(s.requests, json.RawMessage(body))
	if s.Log != nil {
		var line bytes.Buffer
		if json.Compact(&line, body) == nil {
			line.WriteByte('\n')
			s.Log.Write(line.Bytes())
		}
	}
	var rep Reply
	s.retrying = false
	if s.next < len(s.Replies) {
		rep = s.Replies[s.next]
		if rep.Status != 0 {
			// Answer the error once; the next request gets the reply
			// that follows it in the script.
			s.next++
			s.retrying = true
			s.mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(rep.Status)
			msg := rep.Error
			if msg == "" {
				msg = fmt.Sprintf("scripted status %d", rep.Status)
			}
			b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error"}})
			w.Write(b)
			return
		}
		s.next++
	} else {
		rep = Reply{Text: s.Fallback, PromptTokens: s.FallbackPromptTokens}
		if rep.Text == "" {
			rep.Text = "(the script has no more replies)"
		}
	}
	s.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	switch {
	case anthropic:
		s.anthropic(w, r, rep)
	case responses:
		s.responses(w, r, rep)
	default:
		s.openai(w, r, rep)
	}
}

// responses streams rep as OpenAI's Responses API does: the text as
// output_text deltas of one message item, each call as a function_call
// item, then response.completed.
func (s *Server) responses(w http.ResponseWriter, r *http.Request, rep Reply) {
	send := func(event string, v map[string]any) {
		v["type"] = event
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b)
		flush(w)
		pause(r, rep)
	}
	send("response.created", map[string]any{"response": map[string]any{"id": "resp_scripted", "status": "in_progress"}})
	idx := 0
	if rep.Text != "" {
		item := map[string]any{"type": "message", "id": "msg_scripted", "role": "assistant", "status": "in_progress", "content": []any{}}
		send("response.output_item.added", map[string]any{"output_index": idx, "item": item})
		for _, p := range s.pieces(rep.Text) {
			send("response.output_text.delta", map[string]any{"item_id": "msg_scripted", "output_index": idx, "content_index": 0, "delta": p})
		}
		done := map[string]any{"type": "message", "id": "msg_scripted", "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": rep.Text, "annotations": []any{}}}}
		send("response.output_item.done", map[string]any{"output_index": idx, "item": done})
		idx++
	}
	for i, c := range rep.Calls {
		id := fmt.Sprintf("fc_scripted_%d", i)
		item := map[string]any{"type": "function_call", "id": id, "call_id": callID(c, i), "name": c.Name, "arguments": "", "status": "in_progress"}
		send("response.output_item.added", map[string]any{"output_index": idx, "item": item})
		for _, p := range s.pieces(args(c)) {
			send("response.function_call_arguments.delta", map[string]any{"item_id": id, "output_index": idx, "delta": p})
		}
		done := map[string]any{"type": "function_call", "id": id, "call_id": callID(c, i), "name": c.Name, "arguments": args(c), "status": "completed"}
		send("response.output_item.done", map[string]any{"output_index": idx, "item": done})
		idx++
	}
	status := "completed"
	if rep.Stop == "length" {
		status = "incomplete"
	}
	send("response."+status, map[string]any{"response": map[string]any{"id": "resp_scripted", "status": status,
		"usage": map[string]any{"input_tokens": 100, "output_tokens": 10, "total_tokens": 110,
			"input_tokens_details": map[string]any{"cached_tokens": 0}, "output_tokens_details": map[string]any{"reasoning_tokens": 0}}}})
}

func (s *Server) pieces(str string) []string {
	n := s.Chunk
	if n <= 0 {
		n = 7
	}
	var out []string
	for len(str) > n {
		out = append(out, str[:n])
		str = str[n:]
	}
	if str != "" {
		out = append(out, str)
	}
	return out
}

func callID(c Call, i int) string {
	if c.ID != "" {
		return c.ID
	}
	return fmt.Sprintf("call_%d", i)
}

func args(c Call) string {
	if c.RawArgs != "" {
		return c.RawArgs
	}
	if len(c.Args) == 0 {
		return "{}"
	}
	return string(c.Args)
}

func flush(w http.ResponseWriter) {
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

// pause waits the reply's delay after a fragment; it gives up when the
// client has gone.
func pause(r *http.Request, rep Reply) {
	if rep.DelayMs <= 0 {
		return
	}
	t := time.NewTimer(time.Duration(rep.DelayMs) * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
	case <-r.Context().Done():
	}
}

func (s *Server) openai(w http.ResponseWriter, r *http.Request, rep Reply) {
	send := func(b []byte) {
		// One write per event: "data: ", the chunk and the blank line.
		line := make([]byte, 0, len(b)+8)
		line = append(append(append(line, "data: "...), b...), "\n\n"...)
		w.Write(line)
		flush(w)
		pause(r, rep)
	}
	// The chunks are written by hand, byte for byte what json.Marshal
	// writes for the maps of openAIChunkMap (sorted keys, HTML escaped),
	// without its reflection and sorting per fragment: this server's own
	// time is part of every benchmark's wall time. TestOpenAIChunksAsMarshal
	// holds the two together.
	chunk := func(delta string, finish string) []byte {
		b := append([]byte(`{"choices":[{"delta":{`), delta...)
		b = append(b, `},"finish_reason":`...)
		if finish == "" {
			b = append(b, "null"...)
		} else {
			b = appendJSONString(b, finish)
		}
		return append(b, `,"index":0}],"id":"chatcmpl-scripted","model":"scripted","object":"chat.completion.chunk"}`...)
	}
	str := func(key, v string) string { return string(appendJSONString([]byte(`"`+key+`":`), v)) }
	send(chunk(`"content":"","role":"assistant"`, ""))
	for _, p := range s.pieces(rep.Thinking) {
		send(chunk(str("reasoning_content", p), ""))
	}
	for _, p := range s.pieces(rep.Text) {
		send(chunk(str("content", p), ""))
	}
	for i, c := range rep.Calls {
		send(chunk(fmt.Sprintf(`"tool_calls":[{"function":{"arguments":"",%s},%s,"index":%d,"type":"function"}]`, str("name", c.Name), str("id", callID(c, i)), i), ""))
		for _, p := range s.pieces(args(c)) {
			send(chunk(fmt.Sprintf(`"tool_calls":[{"function":{%s},"index":%d}]`, str("arguments", p), i), ""))
		}
	}
	finish := "stop"
	if len(rep.Calls) > 0 {
		finish = "tool_calls"
	}
	if rep.Stop != "" {
		finish = rep.Stop
	}
	send(chunk("", finish))
	send(fmt.Appendf(nil, `{"choices":[],"id":"chatcmpl-scripted","model":"scripted","object":"chat.completion.chunk","usage":{"completion_tokens":10,"prompt_tokens":%d,"total_tokens":%d}}`, rep.prompt(), rep.prompt()+10))
	fmt.Fprint(w, "data: [DONE]\n\n")
	flush(w)
}

// appendJSONString appends v as json.Marshal writes a string.
func appendJSONString(b []byte, v string) []byte {
	q, _ := json.Marshal(v)
	return append(b, q...)
}

func (s *Server) anthropic(w http.ResponseWriter, r *http.Request, rep Reply) {
	send := func(event string, v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b)
		flush(w)
		pause(r, rep)
	}
	send("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": "msg_scripted", "type": "message", "role": "assistant", "model": "scripted", "content": []any{},
		"stop_reason": nil, "usage": map[string]any{"input_tokens": rep.prompt(), "output_tokens": 1,
			"cache_read_input_tokens": rep.CacheRead, "cache_creation_input_tokens": rep.CacheWrite}}})
	idx := 0
	if rep.Thinking != "" {
		send("content_block_start", map[string]any{"type": "content_block_start", "index": idx, "content_block": map[string]any{"type": "thinking", "thinking": ""}})
		for _, p := range s.pieces(rep.Thinking) {
			send("content_block_delta", map[string]any{"type": "content_block_delta", "index": idx, "delta": map[string]any{"type": "thinking_delta", "thinking": p}})
		}
		send("content_block_stop", map[string]any{"type": "content_block_stop", "index": idx})
		idx++
	}
	if rep.Text != "" {
		send("content_block_start", map[string]any{"type": "content_block_start", "index": idx, "content_block": map[string]any{"type": "text", "text": ""}})
		for _, p := range s.pieces(rep.Text) {
			send("content_block_delta", map[string]any{"type": "content_block_delta", "index": idx, "delta": map[string]any{"type": "text_delta", "text": p}})
		}
		send("content_block_stop", map[string]any{"type": "content_block_stop", "index": idx})
		idx++
	}
	for i, c := range rep.Calls {
		send("content_block_start", map[string]any{"type": "content_block_start", "index": idx, "content_block": map[string]any{
			"type": "tool_use", "id": callID(c, i), "name": c.Name, "input": map[string]any{}}})
		for _, p := range s.pieces(args(c)) {
			send("content_block_delta", map[string]any{"type": "content_block_delta", "index": idx, "delta": map[string]any{"type": "input_json_delta", "partial_json": p}})
		}
		send("content_block_stop", map[string]any{"type": "content_block_stop", "index": idx})
		idx++
	}
	stop := "end_turn"
	if len(rep.Calls) > 0 {
		stop = "tool_use"
	}
	switch rep.Stop {
	case "":
	case "length":
		stop = "max_tokens"
	default:
		stop = rep.Stop
	}
	send("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop}, "usage": map[string]any{"output_tokens": 10}})
	send("message_stop", map[string]any{"type": "message_stop"})
}

// hasAssistant reports whether a request body carries an assistant message
// (in any of the wire shapes; a Responses API input counts a function call
// as one).
func hasAssistant(body []byte) bool {
	// A benchmark's request carries the whole history, and decoding all of
	// it for every request made this server's own time a large part of a
	// turn's wall time. The members are walked in order instead, and the
	// walk stops at the first assistant message, near the start of the
	// list. hasAssistantDecoded is the reference (TestHasAssistant).
	dec := json.NewDecoder(bytes.NewReader(body))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return false
		}
		key, _ := t.(string)
		if key != "messages" && key != "input" {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return false
			}
			continue
		}
		if t, err := dec.Token(); err != nil || t != json.Delim('[') {
			if t == nil && err == nil {
				continue // null
			}
			return false
		}
		for dec.More() {
			var it struct {
				Role string `json:"role"`
				Type string `json:"type"`
			}
			if dec.Decode(&it) != nil {
				return false
			}
			if it.Role == "assistant" || it.Type == "function_call" {
				return true
			}
		}
		if _, err := dec.Token(); err != nil {
			return false
		}
	}
	return false
}
