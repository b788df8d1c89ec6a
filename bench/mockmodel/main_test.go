package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// sseEvent is one server-sent event: its optional event name and its data.
type sseEvent struct{ name, data string }

func readSSE(t *testing.T, r io.Reader) []sseEvent {
	t.Helper()
	var out []sseEvent
	var cur sseEvent
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.data != "" || cur.name != "" {
				out = append(out, cur)
			}
			cur = sseEvent{}
		case strings.HasPrefix(line, "event: "):
			cur.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			cur.data = strings.TrimPrefix(line, "data: ")
		default:
			t.Fatalf("unexpected SSE line %q", line)
		}
	}
	if cur.data != "" {
		t.Fatalf("stream ended without a blank line after %q", cur.data)
	}
	return out
}

func post(t *testing.T, url, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func TestOpenAIStream(t *testing.T) {
	srv := httptest.NewServer(New(Config{}))
	defer srv.Close()
	for _, path := range []string{"/v1/chat/completions", "/chat/completions"} {
		resp := post(t, srv.URL+path, `{"model":"mock-1","stream":true,"messages":[{"role":"user","content":"hello"}]}`)
		if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			t.Fatalf("%s: status %d, content type %q", path, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		events := readSSE(t, resp.Body)
		if last := events[len(events)-1]; last.data != "[DONE]" {
			t.Fatalf("last event %q, want [DONE]", last.data)
		}
		var text strings.Builder
		finish := ""
		for _, ev := range events[:len(events)-1] {
			var c struct {
				Object  string `json:"object"`
				Model   string `json:"model"`
				Choices []struct {
					Delta struct {
						Content string `json:"content"`
					} `json:"delta"`
					FinishReason *string `json:"finish_reason"`
				} `json:"choices"`
			}
			if err := json.Unmarshal([]byte(ev.data), &c); err != nil {
				t.Fatalf("chunk %q: %v", ev.data, err)
			}
			if c.Object != "chat.completion.chunk" || c.Model != "mock-1" {
				t.Fatalf("chunk %q: wrong object or model", ev.data)
			}
			for _, ch := range c.Choices {
				text.WriteString(ch.Delta.Content)
				if ch.FinishReason != nil {
					finish = *ch.FinishReason
				}
			}
		}
		if text.String() != DefaultReply || finish != "stop" {
			t.Fatalf("%s: reply %q finish %q", path, text.String(), finish)
		}
	}
}

func TestAnthropicStream(t *testing.T) {
	srv := httptest.NewServer(New(Config{Reply: "Yes, it works.", Chunks: 4}))
	defer srv.Close()
	resp := post(t, srv.URL+"/v1/messages", `{"model":"claude-mock","stream":true,"max_tokens":10,"messages":[{"role":"user","content":"hello"}]}`)
	events := readSSE(t, resp.Body)
	var names []string
	var text strings.Builder
	deltas := 0
	for _, ev := range events {
		var v struct {
			Type  string `json:"type"`
			Delta struct {
				Type       string `json:"type"`
				Text       string `json:"text"`
				StopReason string `json:"stop_reason"`
			} `json:"delta"`
		}
		if err := json.Unmarshal([]byte(ev.data), &v); err != nil {
			t.Fatalf("event %q: %v", ev.data, err)
		}
		if v.Type != ev.name {
			t.Fatalf("event name %q but data type %q", ev.name, v.Type)
		}
		if len(names) == 0 || names[len(names)-1] != ev.name {
			names = append(names, ev.name)
		}
		switch v.Type {
		case "content_block_delta":
			if v.Delta.Type != "text_delta" {
				t.Fatalf("delta type %q", v.Delta.Type)
			}
			text.WriteString(v.Delta.Text)
			deltas++
		case "message_delta":
			if v.Delta.StopReason != "end_turn" {
				t.Fatalf("stop reason %q", v.Delta.StopReason)
			}
		}
	}
	want := "message_start content_block_start ping content_block_delta content_block_stop message_delta message_stop"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("events\n got %s\nwant %s", got, want)
	}
	if text.String() != "Yes, it works." || deltas != 4 {
		t.Fatalf("reply %q in %d deltas", text.String(), deltas)
	}
}

func TestNonStreaming(t *testing.T) {
	srv := httptest.NewServer(New(Config{Reply: "ok"}))
	defer srv.Close()
	var oa struct {
		Choices []struct {
			Message struct{ Content string } `json:"message"`
		} `json:"choices"`
	}
	if err := json.NewDecoder(post(t, srv.URL+"/v1/chat/completions", `{"model":"m"}`).Body).Decode(&oa); err != nil || len(oa.Choices) != 1 || oa.Choices[0].Message.Content != "ok" {
		t.Fatalf("openai: %+v %v", oa, err)
	}
	var an struct {
		Content []struct{ Text string } `json:"content"`
	}
	if err := json.NewDecoder(post(t, srv.URL+"/v1/messages", `{"model":"m","stream":false}`).Body).Decode(&an); err != nil || len(an.Content) != 1 || an.Content[0].Text != "ok" {
		t.Fatalf("anthropic: %+v %v", an, err)
	}
}

func TestLogAndErrors(t *testing.T) {
	var log bytes.Buffer
	srv := httptest.NewServer(New(Config{Log: &log}))
	defer srv.Close()
	post(t, srv.URL+"/v1/chat/completions", "{\n  \"model\": \"a\",\n  \"stream\": true\n}")
	post(t, srv.URL+"/v1/messages", `{"model":"b","stream":true}`)
	if resp := post(t, srv.URL+"/v1/messages", `not json`); resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("bad body: status %d", resp.StatusCode)
	}
	if resp, err := http.Get(srv.URL + "/v1/chat/completions"); err != nil || resp.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("GET completions: %v %v", resp.StatusCode, err)
	}
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	want := []string{`{"model":"a","stream":true}`, `{"model":"b","stream":true}`, `"not json"`}
	if strings.Join(lines, "|") != strings.Join(want, "|") {
		t.Fatalf("log lines\n got %q\nwant %q", lines, want)
	}
}

func TestPieces(t *testing.T) {
	for _, tc := range []struct {
		reply  string
		chunks int
		n      int
	}{{"Hello from the mock model.", 0, 5}, {"abc", 10, 3}, {"héllo wörld", 3, 3}, {"one", 0, 1}} {
		s := &server{cfg: Config{Reply: tc.reply, Chunks: tc.chunks}}
		p := s.pieces()
		if strings.Join(p, "") != tc.reply || len(p) != tc.n {
			t.Errorf("%q/%d: pieces %q", tc.reply, tc.chunks, p)
		}
	}
}

func TestIsLoopback(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:0": true, "localhost:8080": true, "[::1]:0": true, "127.1.2.3:9": true,
		"0.0.0.0:0": false, ":8080": false, "10.0.0.1:80": false, "example.com:80": false,
	} {
		if got := isLoopback(addr); got != want {
			t.Errorf("isLoopback(%q) = %v", addr, got)
		}
	}
}
