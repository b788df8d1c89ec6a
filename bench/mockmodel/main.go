// Command mockmodel serves a fake language model on loopback so that two
// harnesses can be timed against the same, instant, deterministic server.
//
// It speaks two streaming shapes:
//
//	POST /v1/chat/completions   OpenAI chat completions (SSE data: chunks, then data: [DONE])
//	POST /v1/messages           Anthropic messages (message_start … message_stop events)
//
// Both paths are also accepted without the /v1 prefix, since clients differ in
// whether the configured base URL already ends in /v1. A request with
// "stream": false gets a single JSON body of the same shape instead.
//
// The first line on stdout is the bound address (host:port), so a script can
// start it with -addr 127.0.0.1:0 and read the port back. With -log FILE each
// request body is appended to FILE as one JSON line.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/piwasm/pi/internal/scripted"
)

// DefaultReply is the text every completion answers with unless -reply says otherwise.
const DefaultReply = "Hello from the mock model."

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address (port 0 picks a free port)")
	reply := flag.String("reply", DefaultReply, "reply text of every completion")
	chunks := flag.Int("chunks", 0, "split the reply into this many stream deltas (0: one per word)")
	logFile := flag.String("log", "", "append each request body to FILE as one JSON line")
	script := flag.String("script", "", "answer with the replies of this script (a JSON list of {text, thinking, calls, stop, status}) instead of -reply")
	times := flag.String("times", "", "append one line per request to FILE: its number, when it arrived and when its reply was sent (Unix ns)")
	flag.Parse()

	if !isLoopback(*addr) {
		log.Fatalf("mockmodel: -addr %s: only loopback addresses are allowed", *addr)
	}
	var logw io.Writer
	if *logFile != "" {
		f, err := os.OpenFile(*logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			log.Fatalf("mockmodel: %v", err)
		}
		defer f.Close()
		logw = f
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatalf("mockmodel: %v", err)
	}
	fmt.Println(ln.Addr().String())
	os.Stdout.Sync()

	handler := New(Config{Reply: *reply, Chunks: *chunks, Log: logw})
	if *script != "" {
		data, err := os.ReadFile(*script)
		if err != nil {
			log.Fatalf("mockmodel: %v", err)
		}
		var replies []scripted.Reply
		if err := json.Unmarshal(data, &replies); err != nil {
			log.Fatalf("mockmodel: %s: %v", *script, err)
		}
		handler = &scripted.Server{Replies: replies, Fallback: *reply, Restart: true, Log: logw}
	}
	if *times != "" {
		f, err := os.OpenFile(*times, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			log.Fatalf("mockmodel: %v", err)
		}
		defer f.Close()
		handler = timed(handler, f)
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}()
	if err := srv.Serve(ln); err != nil && err != http.ErrServerClosed {
		log.Fatalf("mockmodel: %v", err)
	}
}

// timed records, for each model request, when it arrived and when its reply
// had been sent, so a benchmark can take the harness's time between two
// requests (arrival of request k+1 minus the end of reply k) without the
// model's own share.
func timed(h http.Handler, w io.Writer) http.Handler {
	var mu sync.Mutex
	n := 0
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		arrived := time.Now().UnixNano()
		h.ServeHTTP(rw, r)
		if f, ok := rw.(http.Flusher); ok {
			f.Flush()
		}
		done := time.Now().UnixNano()
		if r.Method != http.MethodPost {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		n++
		fmt.Fprintf(w, "%d %d %d\n", n, arrived, done)
	})
}

// isLoopback reports whether addr names a loopback host.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Config says what the server answers.
type Config struct {
	Reply  string    // reply text; DefaultReply when empty
	Chunks int       // number of stream deltas; 0 means one per word
	Log    io.Writer // receives each request body as one JSON line; may be nil
}

type server struct {
	cfg Config
	mu  sync.Mutex // serialises writes to cfg.Log
}

// New returns the mock model's HTTP handler.
func New(cfg Config) http.Handler {
	if cfg.Reply == "" {
		cfg.Reply = DefaultReply
	}
	s := &server{cfg: cfg}
	mux := http.NewServeMux()
	for _, p := range []string{"/v1/chat/completions", "/chat/completions"} {
		mux.HandleFunc("POST "+p, s.openai)
	}
	for _, p := range []string{"/v1/messages", "/messages"} {
		mux.HandleFunc("POST "+p, s.anthropic)
	}
	for _, p := range []string{"/v1/models", "/models"} {
		mux.HandleFunc("GET "+p, s.models)
	}
	return mux
}

// request is the part of either request shape the server looks at.
type request struct {
	Model  string `json:"model"`
	Stream *bool  `json:"stream"`
}

// read reads and logs the body and decodes the fields the server needs.
func (s *server) read(w http.ResponseWriter, r *http.Request) (request, bool) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return request{}, false
	}
	s.log(body)
	var req request
	if err := json.Unmarshal(body, &req); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]any{
			"type": "invalid_request_error", "message": "body is not JSON: " + err.Error()}})
		return request{}, false
	}
	if req.Model == "" {
		req.Model = "mock-1"
	}
	return req, true
}

// log appends body as one line: compacted when it is JSON, as a JSON
// string otherwise, so every line of the log parses.
func (s *server) log(body []byte) {
	if s.cfg.Log == nil {
		return
	}
	var line bytes.Buffer
	if err := json.Compact(&line, body); err != nil {
		line.Reset()
		b, _ := json.Marshal(string(body))
		line.Write(b)
	}
	line.WriteByte('\n')
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cfg.Log.Write(line.Bytes())
}

// pieces splits the reply into the stream's deltas; joined they give the reply back.
func (s *server) pieces() []string {
	text := s.cfg.Reply
	if s.cfg.Chunks > 0 {
		rs := []rune(text)
		n := min(s.cfg.Chunks, max(len(rs), 1))
		out := make([]string, 0, n)
		for i := range n {
			out = append(out, string(rs[i*len(rs)/n:(i+1)*len(rs)/n]))
		}
		return out
	}
	var out []string
	for len(text) > 0 {
		i := strings.IndexByte(text, ' ')
		if i < 0 {
			out = append(out, text)
			break
		}
		out = append(out, text[:i+1])
		text = text[i+1:]
	}
	if len(out) == 0 {
		out = []string{""}
	}
	return out
}

func tokens(s string) int { return max(1, len(strings.Fields(s))) }

func (s *server) openai(w http.ResponseWriter, r *http.Request) {
	req, ok := s.read(w, r)
	if !ok {
		return
	}
	id := fmt.Sprintf("chatcmpl-mock-%d", time.Now().UnixNano())
	created := time.Now().Unix()
	usage := map[string]any{"prompt_tokens": 10, "completion_tokens": tokens(s.cfg.Reply), "total_tokens": 10 + tokens(s.cfg.Reply)}
	if req.Stream == nil || !*req.Stream {
		writeJSON(w, http.StatusOK, map[string]any{
			"id": id, "object": "chat.completion", "created": created, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": s.cfg.Reply}}},
			"usage": usage,
		})
		return
	}
	sse := newSSE(w)
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{
			"id": id, "object": "chat.completion.chunk", "created": created, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}},
		}
	}
	sse.data(chunk(map[string]any{"role": "assistant", "content": ""}, nil))
	for _, p := range s.pieces() {
		sse.data(chunk(map[string]any{"content": p}, nil))
	}
	sse.data(chunk(map[string]any{}, "stop"))
	// Usage arrives in a final chunk with no choices, as OpenAI sends it
	// when stream_options.include_usage is set; clients that did not ask
	// for it ignore a chunk without choices.
	sse.data(map[string]any{"id": id, "object": "chat.completion.chunk", "created": created,
		"model": req.Model, "choices": []any{}, "usage": usage})
	sse.raw("data: [DONE]\n\n")
}

func (s *server) anthropic(w http.ResponseWriter, r *http.Request) {
	req, ok := s.read(w, r)
	if !ok {
		return
	}
	id := fmt.Sprintf("msg_mock_%d", time.Now().UnixNano())
	out := tokens(s.cfg.Reply)
	if req.Stream == nil || !*req.Stream {
		writeJSON(w, http.StatusOK, map[string]any{
			"id": id, "type": "message", "role": "assistant", "model": req.Model,
			"content":     []any{map[string]any{"type": "text", "text": s.cfg.Reply}},
			"stop_reason": "end_turn", "stop_sequence": nil,
			"usage": map[string]any{"input_tokens": 10, "output_tokens": out},
		})
		return
	}
	sse := newSSE(w)
	sse.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": req.Model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 10, "output_tokens": 1},
	}})
	sse.event("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
		"content_block": map[string]any{"type": "text", "text": ""}})
	sse.event("ping", map[string]any{"type": "ping"})
	for _, p := range s.pieces() {
		sse.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "text_delta", "text": p}})
	}
	sse.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	sse.event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": "end_turn", "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": out}})
	sse.event("message_stop", map[string]any{"type": "message_stop"})
}

func (s *server) models(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": []any{
		map[string]any{"id": "mock-1", "object": "model", "owned_by": "mock"}}})
}

type sse struct {
	w http.ResponseWriter
	f http.Flusher
}

func newSSE(w http.ResponseWriter) *sse {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	return &sse{w: w, f: f}
}

func (s *sse) raw(text string) {
	io.WriteString(s.w, text)
	if s.f != nil {
		s.f.Flush()
	}
}

func (s *sse) data(v any) {
	b, _ := json.Marshal(v)
	s.raw("data: " + string(b) + "\n\n")
}

func (s *sse) event(name string, v any) {
	b, _ := json.Marshal(v)
	s.raw("event: " + name + "\ndata: " + string(b) + "\n\n")
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}
