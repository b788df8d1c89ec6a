package provider

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// flaky answers with the given handlers in turn (the last one repeats) and
// counts the requests.
func flaky(t *testing.T, steps ...func(w http.ResponseWriter, r *http.Request)) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	srv, _ := fakeServer(t, func(w http.ResponseWriter, r *http.Request) {
		i := int(n.Add(1)) - 1
		steps[min(i, len(steps)-1)](w, r)
	})
	return srv, &n
}

func status(code int, header ...string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.WriteHeader(code)
		io.WriteString(w, `{"error":{"message":"busy"}}`)
	}
}

// hangUp closes the connection before any byte of a response.
func hangUp(w http.ResponseWriter, r *http.Request) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err == nil {
		conn.Close()
	}
}

var okReply = sse(openAIReply)

type retryLog struct {
	delays []time.Duration
	calls  []string
}

// recordingClient retries without waiting and records the waits and the
// OnRetry calls.
func recordingClient(srv *httptest.Server, log *retryLog) *Client {
	return &Client{
		HTTP: srv.Client(),
		Retry: RetryPolicy{Sleep: func(ctx context.Context, d time.Duration) error {
			log.delays = append(log.delays, d)
			return ctx.Err()
		}},
		OnRetry: func(attempt, maxAttempts int, delay time.Duration, err error) {
			log.calls = append(log.calls, fmt.Sprintf("%d | %d | %v | %v", attempt, maxAttempts, delay, err))
		},
	}
}

func TestRetryHonoursRetryAfter(t *testing.T) {
	srv, n := flaky(t, status(429, "Retry-After", "2"), status(429, "Retry-After-Ms", "1500"), okReply)
	var log retryLog
	resp, err := recordingClient(srv, &log).Stream(context.Background(), openAIRoute(srv.URL), hello, nil)
	if err != nil || resp.Text != "Hello!" {
		t.Fatalf("resp %+v err %v", resp, err)
	}
	if n.Load() != 3 {
		t.Fatalf("%d requests, want 3", n.Load())
	}
	if len(log.delays) != 2 || log.delays[0] != 2*time.Second || log.delays[1] != 1500*time.Millisecond {
		t.Fatalf("delays %v", log.delays)
	}
	if len(log.calls) != 2 || !strings.HasPrefix(log.calls[0], "1 | 3 | 2s | local: HTTP 429") || !strings.HasPrefix(log.calls[1], "2 | 3 | 1.5s |") {
		t.Fatalf("OnRetry calls %q", log.calls)
	}
}

func TestRetryBackoffAndGiveUp(t *testing.T) {
	srv, n := flaky(t, status(503))
	var log retryLog
	_, err := recordingClient(srv, &log).Stream(context.Background(), openAIRoute(srv.URL), hello, nil)
	var se *statusError
	if !errors.As(err, &se) || se.StatusCode != 503 {
		t.Fatalf("error %v", err)
	}
	if n.Load() != 4 {
		t.Fatalf("%d requests, want 1 + 3 retries", n.Load())
	}
	for i, d := range log.delays {
		full := defaultRetryBase << i
		if d > full || d < full*3/4 {
			t.Errorf("retry %d waited %v, want within [%v, %v]", i, d, full*3/4, full)
		}
	}
}

func TestRetryWhichFailures(t *testing.T) {
	cases := []struct {
		name     string
		first    func(http.ResponseWriter, *http.Request)
		route    func(string) Route
		requests int32
	}{
		{"529 overloaded", status(529), anthropicRoute, 2},
		{"500", status(500), openAIRoute, 2},
		{"408", status(408), openAIRoute, 2},
		{"400 is final", status(400), openAIRoute, 1},
		{"401 is final", status(401), anthropicRoute, 1},
		{"server says no", status(503, "X-Should-Retry", "false"), openAIRoute, 1},
		{"server says yes", status(400, "X-Should-Retry", "true"), openAIRoute, 2},
		{"reset before the first byte", hangUp, openAIRoute, 2},
		{"overloaded event before any content", sse("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{}}\n\nevent: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n"), anthropicRoute, 2},
		{"invalid request event is final", sse("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{}}\n\nevent: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"bad\"}}\n\n"), anthropicRoute, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			second := okReply
			if c.route(srv0).API == APIAnthropicMessages {
				second = sse(anthropicReply)
			}
			srv, n := flaky(t, c.first, second)
			var log retryLog
			_, err := recordingClient(srv, &log).Stream(context.Background(), c.route(srv.URL), hello, nil)
			if n.Load() != c.requests {
				t.Fatalf("%d requests, want %d (err %v)", n.Load(), c.requests, err)
			}
			if (err == nil) != (c.requests == 2) {
				t.Fatalf("error %v", err)
			}
			if int32(len(log.calls)) != c.requests-1 {
				t.Fatalf("OnRetry calls %q", log.calls)
			}
		})
	}
}

const srv0 = "http://127.0.0.1:1"

// TestNoRetryAfterContent cuts the connection after a delta reached the
// caller: replaying would show the reply twice, so the error is returned.
func TestNoRetryAfterContent(t *testing.T) {
	cut := func(w http.ResponseWriter, r *http.Request) {
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: 4096\r\n\r\n")
		buf.WriteString("data: {\"choices\":[{\"delta\":{\"content\":\"half\"}}]}\n\n")
		buf.Flush()
		conn.Close()
	}
	srv, n := flaky(t, cut, okReply)
	var log retryLog
	var deltas []string
	resp, err := recordingClient(srv, &log).Stream(context.Background(), openAIRoute(srv.URL), hello, func(s string) { deltas = append(deltas, s) })
	if err == nil || n.Load() != 1 || len(log.calls) != 0 {
		t.Fatalf("err %v, %d requests, retries %q", err, n.Load(), log.calls)
	}
	if resp.Text != "half" || resp.StopReason != StopReasonError || strings.Join(deltas, "") != "half" {
		t.Fatalf("resp %+v deltas %q", resp, deltas)
	}
}

// TestRetryCancelDuringBackoff waits for real: the server asks for 30 s and
// the context ends during the wait, which must end the call at once.
func TestRetryCancelDuringBackoff(t *testing.T) {
	srv, n := flaky(t, status(429, "Retry-After", "30"), okReply)
	ctx, cancel := context.WithCancel(context.Background())
	c := &Client{HTTP: srv.Client(), OnRetry: func(int, int, time.Duration, error) {
		go func() { time.Sleep(20 * time.Millisecond); cancel() }()
	}}
	done := make(chan struct{})
	var resp Response
	var err error
	go func() { resp, err = c.Stream(ctx, openAIRoute(srv.URL), hello, nil); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the backoff ignored the cancelled context")
	}
	if !errors.Is(err, context.Canceled) || resp.StopReason != StopReasonAborted || n.Load() != 1 {
		t.Fatalf("resp %+v err %v requests %d", resp, err, n.Load())
	}
}

func TestRetryLimits(t *testing.T) {
	srv, n := flaky(t, status(429, "Retry-After", "120"), okReply)
	var log retryLog
	_, err := recordingClient(srv, &log).Stream(context.Background(), openAIRoute(srv.URL), hello, nil)
	if err == nil || !strings.Contains(err.Error(), "asked to retry in 2m0s, longer than the 1m0s pi waits") || n.Load() != 1 {
		t.Fatalf("err %v, %d requests", err, n.Load())
	}

	srv, n = flaky(t, status(503), okReply)
	c := recordingClient(srv, &log)
	c.Retry.MaxAttempts = -1
	if _, err := c.Stream(context.Background(), openAIRoute(srv.URL), hello, nil); err == nil || n.Load() != 1 {
		t.Fatalf("retries off: err %v, %d requests", err, n.Load())
	}
}

func TestRetryAfterParsing(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	cases := []struct {
		h    map[string]string
		want time.Duration
	}{
		{map[string]string{"Retry-After": "3"}, 3 * time.Second},
		{map[string]string{"Retry-After": "0.5"}, 500 * time.Millisecond},
		{map[string]string{"Retry-After": now.Add(7 * time.Second).Format(http.TimeFormat)}, 7 * time.Second},
		{map[string]string{"Retry-After": now.Add(-time.Hour).Format(http.TimeFormat)}, 0},
		{map[string]string{"Retry-After": "soon"}, 0},
		{map[string]string{"Retry-After": "-4"}, 0},
		{map[string]string{"Retry-After-Ms": "250", "Retry-After": "9"}, 250 * time.Millisecond},
		{map[string]string{}, 0},
	}
	for _, c := range cases {
		h := http.Header{}
		for k, v := range c.h {
			h.Set(k, v)
		}
		if got := retryAfter(h, now); got != c.want {
			t.Errorf("%v: %v, want %v", c.h, got, c.want)
		}
	}
}

func TestUserAgent(t *testing.T) {
	srv, last := fakeServer(t, okReply)
	for _, c := range []struct {
		client  *Client
		headers map[string]string
		prefix  string
	}{
		{&Client{HTTP: srv.Client()}, nil, "pi/dev ("},
		{&Client{HTTP: srv.Client(), Version: "0.9.1"}, nil, "pi/0.9.1 ("},
		{&Client{HTTP: srv.Client(), Version: "0.9.1"}, map[string]string{"user-agent": "mine"}, "mine"},
	} {
		route := openAIRoute(srv.URL)
		route.Headers = c.headers
		if _, err := c.client.Stream(context.Background(), route, hello, nil); err != nil {
			t.Fatal(err)
		}
		if ua := last().header.Get("User-Agent"); !strings.HasPrefix(ua, c.prefix) {
			t.Errorf("User-Agent %q, want prefix %q", ua, c.prefix)
		}
	}
}
