package provider

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// recorded is what the fake server saw.
type recorded struct {
	method, path, query string
	header              http.Header
	body                []byte
}

// fakeServer serves handler on loopback and records each request.
func fakeServer(t *testing.T, handler func(w http.ResponseWriter, r *http.Request)) (*httptest.Server, func() recorded) {
	t.Helper()
	var mu sync.Mutex
	var last recorded
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		last = recorded{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Clone(), body}
		mu.Unlock()
		handler(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, func() recorded { mu.Lock(); defer mu.Unlock(); return last }
}

// sse writes chunks, flushing after each.
func sse(chunks ...string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, c := range chunks {
			io.WriteString(w, c)
			w.(http.Flusher).Flush()
		}
	}
}

func openAIRoute(base string) Route {
	return Route{Provider: "local", ModelID: "gpt-x", BaseURL: base + "/v1/", API: APIOpenAICompletions, APIKey: "sk-test", SystemInHistory: true, Headers: map[string]string{"X-Title": "pi"}}
}

func anthropicRoute(base string) Route {
	return Route{Provider: "anthropic", ModelID: "claude-x", BaseURL: base, API: APIAnthropicMessages, APIKey: "sk-ant-test"}
}

var hello = Request{Messages: []Message{{Role: RoleSystem, Content: "Be brief."}, {Role: RoleUser, Content: "Hi"}}, MaxTokens: 100}

const openAIReply = `data: {"id":"c1","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}

data: {"id":"c1","choices":[{"index":0,"delta":{"content":"Hel"},"finish_reason":null}]}

: keep-alive

data: {"id":"c1","choices":[{"index":0,"delta":{"content":"lo!"},"finish_reason":null}]}

data: {"id":"c1","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}

data: {"id":"c1","choices":[],"usage":{"prompt_tokens":12,"completion_tokens":3,"total_tokens":15,"prompt_tokens_details":{"cached_tokens":8}}}

data: [DONE]

`

const anthropicReply = "event: message_start\r\n" +
	`data: {"type":"message_start","message":{"id":"m1","type":"message","role":"assistant","content":[],"model":"claude-x","usage":{"input_tokens":20,"cache_creation_input_tokens":5,"cache_read_input_tokens":7,"output_tokens":1,"cache_creation":{"ephemeral_1h_input_tokens":3}}}}` + "\r\n\r\n" +
	"event: content_block_start\r\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\r\n\r\n" +
	"event: ping\r\ndata: {\"type\": \"ping\"}\r\n\r\n" +
	"event: content_block_delta\r\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi \"}}\r\n\r\n" +
	"event: content_block_delta\r\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"hmm\"}}\r\n\r\n" +
	"event: content_block_delta\r\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"there.\"}}\r\n\r\n" +
	"event: content_block_stop\r\ndata: {\"type\":\"content_block_stop\",\"index\":0}\r\n\r\n" +
	"event: message_delta\r\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":4}}\r\n\r\n" +
	"event: message_stop\r\ndata: {\"type\":\"message_stop\"}\r\n\r\n"

// splitEvery cuts s into pieces of n bytes, so frames straddle writes.
func splitEvery(s string, n int) []string {
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	return append(out, s)
}

func TestStreamOpenAI(t *testing.T) {
	srv, last := fakeServer(t, sse(splitEvery(openAIReply, 7)...))
	route := openAIRoute(srv.URL)
	var deltas []string
	resp, err := testClient(srv).Stream(context.Background(), route, hello, func(s string) { deltas = append(deltas, s) })
	if err != nil {
		t.Fatal(err)
	}
	want := Response{Text: "Hello!", StopReason: "stop", RawStopReason: "stop", ResponseID: "c1",
		Usage: Usage{InputTokens: 4, OutputTokens: 3, CacheReadTokens: 8, ReasoningReported: true, Reported: true}}
	if !reflect.DeepEqual(resp, want) {
		t.Errorf("response %+v, want %+v", resp, want)
	}
	if strings.Join(deltas, "|") != "Hel|lo!" {
		t.Errorf("deltas %q", deltas)
	}
	got := last()
	if got.method != "POST" || got.path != "/v1/chat/completions" {
		t.Errorf("request line %s %s", got.method, got.path)
	}
	for k, v := range map[string]string{"Authorization": "Bearer sk-test", "Content-Type": "application/json", "Accept": "application/json", "X-Title": "pi"} {
		if got.header.Get(k) != v {
			t.Errorf("header %s = %q, want %q", k, got.header.Get(k), v)
		}
	}
	body, _ := DryRun(route, hello)
	if !bytes.Equal(got.body, body) {
		t.Errorf("sent body differs from DryRun:\n%s\n%s", got.body, body)
	}
	golden(t, "openai_request.json", got.body)
}

func TestStreamAnthropic(t *testing.T) {
	srv, last := fakeServer(t, sse(splitEvery(anthropicReply, 5)...))
	route := anthropicRoute(srv.URL + "/")
	var deltas []string
	resp, err := testClient(srv).Stream(context.Background(), route, hello, func(s string) { deltas = append(deltas, s) })
	if err != nil {
		t.Fatal(err)
	}
	// No thinking_tokens: no reasoning count, as the established harness
	// records none then; the model that answered is the one asked for.
	want := Response{Text: "Hi there.", StopReason: "stop", RawStopReason: "end_turn", ResponseID: "m1",
		Usage: Usage{InputTokens: 20, OutputTokens: 4, CacheReadTokens: 7, CacheWriteTokens: 5, CacheWrite1hTokens: 3, CacheWrite1hReported: true, Reported: true}}
	if !reflect.DeepEqual(resp, want) {
		t.Errorf("response %+v, want %+v", resp, want)
	}
	if strings.Join(deltas, "|") != "Hi |there." {
		t.Errorf("deltas %q", deltas)
	}
	got := last()
	if got.path != "/v1/messages" {
		t.Errorf("path %s", got.path)
	}
	if got.header.Get("X-Api-Key") != "sk-ant-test" || got.header.Get("Anthropic-Version") != "2023-06-01" || got.header.Get("Authorization") != "" {
		t.Errorf("headers %v", got.header)
	}
	golden(t, "anthropic_request.json", got.body)
}

// TestStreamIsIncremental proves deltas reach the caller while the server
// is still holding the response open: the server sends the next chunk only
// after the client reported the previous delta.
func TestStreamIsIncremental(t *testing.T) {
	next := make(chan struct{}, 1)
	srv, _ := fakeServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, part := range []string{"one ", "two ", "three"} {
			io.WriteString(w, `data: {"choices":[{"delta":{"content":"`+part[:len(part)/2])
			w.(http.Flusher).Flush()
			io.WriteString(w, part[len(part)/2:]+`"}}]}`+"\n\n")
			w.(http.Flusher).Flush()
			select {
			case <-next:
			case <-time.After(5 * time.Second):
				return
			case <-r.Context().Done():
				return
			}
		}
		io.WriteString(w, "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"length\"}]}\n\ndata: [DONE]\n\n")
	})
	resp, err := testClient(srv).Stream(context.Background(), openAIRoute(srv.URL), hello, func(string) { next <- struct{}{} })
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "one two three" || resp.StopReason != "length" {
		t.Errorf("response %+v", resp)
	}
}

func TestStreamHTTPErrors(t *testing.T) {
	cases := []struct {
		name   string
		status int
		body   string
		route  func(string) Route
		want   []string
	}{
		{"401 anthropic", 401, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`, anthropicRoute,
			[]string{"anthropic: HTTP 401 Unauthorized", "invalid x-api-key"}},
		{"401 without key", 401, `{"error":{"message":"Missing bearer"}}`, func(b string) Route { r := openAIRoute(b); r.APIKey = ""; return r },
			[]string{"local: HTTP 401", "no API key is configured"}},
		{"500 long body", 500, "<html>\n" + strings.Repeat("oops ", 500) + "</html>", openAIRoute,
			[]string{"local: HTTP 500 Internal Server Error", "<html> oops", "…"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv, _ := fakeServer(t, func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(c.status)
				io.WriteString(w, c.body)
			})
			_, err := testClient(srv).Stream(context.Background(), c.route(srv.URL), hello, nil)
			var se *statusError
			if !errors.As(err, &se) || se.StatusCode != c.status {
				t.Fatalf("error %v, want a StatusError %d", err, c.status)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if len(se.Body) > errorExcerpt+len("…") {
				t.Errorf("excerpt is %d bytes", len(se.Body))
			}
		})
	}
}

func TestStreamMalformed(t *testing.T) {
	cases := []struct {
		name  string
		route func(string) Route
		reply string
		ctype string
		want  []string
		text  string
	}{
		{"openai bad json", openAIRoute, "data: {\"choices\":[{\"delta\":{\"content\":\"ok\"}}]}\n\ndata: {\"choices\":[{\"delta\":\n\n", "",
			[]string{"local: malformed JSON in data line", `{"choices":[{"delta":`}, "ok"},
		{"anthropic bad json", anthropicRoute, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{}}\n\nevent: content_block_delta\ndata: not json\n\n", "",
			[]string{"anthropic: malformed JSON in \"content_block_delta\" event", "not json"}, ""},
		{"openai cut short", openAIRoute, "data: {\"choices\":[{\"delta\":{\"content\":\"par\"}}]}\n\n", "",
			[]string{"local: stream ended before a finish_reason or [DONE]"}, "par"},
		{"anthropic cut short", anthropicRoute, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{}}\n\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"delta\":{\"type\":\"text_delta\",\"text\":\"par\"}}\n\n", "",
			[]string{"anthropic: stream ended before message_stop"}, "par"},
		{"anthropic error event", anthropicRoute, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{}}\n\nevent: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n", "",
			[]string{"anthropic: server reported an error mid-stream: overloaded_error: Overloaded"}, ""},
		{"openai error chunk", openAIRoute, "data: {\"error\":{\"message\":\"rate limited\",\"type\":\"rate_limit\"}}\n\n", "",
			[]string{"local: server reported an error mid-stream: rate_limit: rate limited"}, ""},
		{"not an event stream", openAIRoute, `{"choices":[{"message":{"content":"hi"}}]}`, "application/json",
			[]string{"stream ended before", `"application/json", not text/event-stream`}, ""},
		{"anthropic empty", anthropicRoute, "", "",
			[]string{"anthropic: stream ended without any message_start"}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv, _ := fakeServer(t, func(w http.ResponseWriter, r *http.Request) {
				ct := c.ctype
				if ct == "" {
					ct = "text/event-stream"
				}
				w.Header().Set("Content-Type", ct)
				io.WriteString(w, c.reply)
			})
			resp, err := testClient(srv).Stream(context.Background(), c.route(srv.URL), hello, nil)
			var se *streamError
			if !errors.As(err, &se) {
				t.Fatalf("error %v (%T), want a StreamError", err, err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if resp.Text != c.text {
				t.Errorf("partial text %q, want %q", resp.Text, c.text)
			}
		})
	}
}

func TestStreamOpenAIWithoutDone(t *testing.T) {
	srv, _ := fakeServer(t, sse("data: {\"choices\":[{\"delta\":{\"content\":\"x\"},\"finish_reason\":\"stop\"}]}\n\n"))
	resp, err := testClient(srv).Stream(context.Background(), openAIRoute(srv.URL), hello, nil)
	if err != nil || resp.Text != "x" || resp.StopReason != "stop" {
		t.Fatalf("resp %+v, err %v", resp, err)
	}
}

// TestStreamConnectionCut closes the TCP connection in the middle of a
// response that announced more bytes.
func TestStreamConnectionCut(t *testing.T) {
	srv, _ := fakeServer(t, func(w http.ResponseWriter, r *http.Request) {
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: 4096\r\n\r\n")
		buf.WriteString("data: {\"choices\":[{\"delta\":{\"content\":\"half\"}}]}\n\ndata: {\"cho")
		buf.Flush()
		conn.Close()
	})
	resp, err := testClient(srv).Stream(context.Background(), openAIRoute(srv.URL), hello, nil)
	if err == nil || !strings.Contains(err.Error(), "local: connection closed in the middle of the stream") {
		t.Fatalf("error %v", err)
	}
	if resp.Text != "half" {
		t.Errorf("partial text %q", resp.Text)
	}
}

func TestStreamTimeout(t *testing.T) {
	for _, phase := range []string{"before headers", "mid-stream"} {
		t.Run(phase, func(t *testing.T) {
			srv, _ := fakeServer(t, func(w http.ResponseWriter, r *http.Request) {
				if phase == "mid-stream" {
					w.Header().Set("Content-Type", "text/event-stream")
					io.WriteString(w, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{}}\n\n")
					w.(http.Flusher).Flush()
				}
				<-r.Context().Done()
			})
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			defer cancel()
			start := time.Now()
			_, err := testClient(srv).Stream(ctx, anthropicRoute(srv.URL), hello, nil)
			if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "anthropic: timed out") {
				t.Fatalf("error %v, want a deadline error", err)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Fatalf("took %v", d)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := (&Client{}).Stream(ctx, openAIRoute("http://127.0.0.1:9"), hello, nil)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "canceled") {
		t.Fatalf("error %v", err)
	}
}

func TestStreamRejectsBadRoute(t *testing.T) {
	resp, err := (&Client{}).Stream(context.Background(), Route{ModelID: "m", API: APIOpenAICompletions, BaseURL: "nope"}, hello, nil)
	if err == nil || !strings.Contains(err.Error(), "absolute http") || resp.StopReason != StopReasonError {
		t.Fatalf("error %v, stop %q", err, resp.StopReason)
	}
}

// testClient talks to srv and retries without waiting.
func testClient(srv *httptest.Server) *Client {
	return &Client{HTTP: srv.Client(), Retry: RetryPolicy{Sleep: func(ctx context.Context, d time.Duration) error { return ctx.Err() }}}
}

// TestStreamKeepsConnection: a body whose end comes a moment after [DONE]
// (as over a real network, where the last chunk may follow in another
// packet) is read to its end, so the next request reuses the connection
// instead of dialling again.
func TestStreamKeepsConnection(t *testing.T) {
	var mu sync.Mutex
	dials := 0
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		sse(openAIReply)(w, r)
		time.Sleep(5 * time.Millisecond) // the terminating chunk comes after [DONE]
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			mu.Lock()
			dials++
			mu.Unlock()
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	c := testClient(srv)
	for i := range 3 {
		if _, err := c.Stream(context.Background(), openAIRoute(srv.URL), hello, nil); err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if dials != 1 {
		t.Errorf("3 requests opened %d connections, want 1 (the body was closed before its end)", dials)
	}
}

// TestStreamDoneBodyHeldOpen: a server that keeps the body open after
// [DONE] does not hold the reply up for longer than the drain's bound.
func TestStreamDoneBodyHeldOpen(t *testing.T) {
	release := make(chan struct{})
	srv, _ := fakeServer(t, func(w http.ResponseWriter, r *http.Request) {
		sse(openAIReply)(w, r)
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	defer close(release)
	start := time.Now()
	resp, err := testClient(srv).Stream(context.Background(), openAIRoute(srv.URL), hello, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "Hello!" {
		t.Errorf("text %q", resp.Text)
	}
	// Without the drain's bound (100 ms) the reply waits for the server,
	// which holds the body until the test ends: a few seconds tell the
	// two apart on a loaded machine too.
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the reply took %v with the body held open after [DONE]", d)
	}
}
