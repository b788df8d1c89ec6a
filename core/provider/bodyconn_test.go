package provider

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// bigRequest is a request whose body is well over net/http's 32 KiB copy
// buffer, in many pieces.
func bigRequest(n int) Request {
	req := Request{Messages: []Message{{Role: RoleSystem, Content: "Be brief."}}, MaxTokens: 100}
	for i := range n {
		id := fmt.Sprintf("call_%d", i)
		req.Messages = append(req.Messages,
			Message{Role: RoleUser, Content: fmt.Sprintf("Read file %d.", i)},
			Message{Role: RoleAssistant, Content: "Reading.", ToolCalls: []ToolCall{{ID: id, Name: "read", Arguments: []byte(`{"path":"f.txt"}`)}}},
			Message{Role: RoleTool, ToolCallID: id, ToolName: "read", Content: strings.Repeat("line of the file\n", 20)})
	}
	return req
}

// A body written through WrapDial's connections arrives byte for byte as
// DryRun builds it, over one connection reused from request to request.
func TestWrapDialBody(t *testing.T) {
	var mu sync.Mutex
	var bodies [][]byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, b)
		mu.Unlock()
		sse(openAIReply)(w, r)
	}))
	defer srv.Close()
	tr := srv.Client().Transport.(*http.Transport).Clone()
	tr.DialContext = WrapDial((&net.Dialer{}).DialContext)
	c := &Client{HTTP: &http.Client{Transport: tr}}
	route := openAIRoute(srv.URL)
	for i, n := range []int{0, 1, 150, 3} {
		req := bigRequest(n)
		if _, err := c.Stream(context.Background(), route, req, nil); err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		want, err := DryRun(route, req)
		if err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		got := bodies[len(bodies)-1]
		mu.Unlock()
		if !bytes.Equal(got, want) {
			t.Fatalf("request %d (%d bytes): the server got %d bytes that differ from DryRun's", i, len(want), len(got))
		}
	}
}

// What a request allocates with and without the wrapped connection: net/http's
// 32 KiB copy buffer is gone from every request.
func TestWrapDialAllocates(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		sse(openAIReply)(w, r)
	}))
	defer srv.Close()
	route := openAIRoute(srv.URL)
	req := bigRequest(150)
	if body, _ := DryRun(route, req); len(body) < 64<<10 {
		t.Fatalf("the body is only %d bytes", len(body))
	}
	perRequest := func(wrap bool) uint64 {
		tr := srv.Client().Transport.(*http.Transport).Clone()
		if wrap {
			tr.DialContext = WrapDial((&net.Dialer{}).DialContext)
		}
		c := &Client{HTTP: &http.Client{Transport: tr}}
		defer tr.CloseIdleConnections()
		if _, err := c.Stream(context.Background(), route, req, nil); err != nil { // connection and memos
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		const n = 20
		for range n {
			if _, err := c.Stream(context.Background(), route, req, nil); err != nil {
				t.Fatal(err)
			}
		}
		runtime.ReadMemStats(&after)
		return (after.TotalAlloc - before.TotalAlloc) / n
	}
	plain, wrapped := perRequest(false), perRequest(true)
	t.Logf("bytes allocated per request (client and server): %d plain, %d through WrapDial", plain, wrapped)
	if plain < wrapped+24<<10 {
		t.Errorf("WrapDial saves %d bytes a request, want at least 24 KiB (the copy buffer)", int64(plain)-int64(wrapped))
	}
}

// recordingConn is the server's end of a pipe, remembering each read.
type recordingConn struct {
	net.Conn
	mu    sync.Mutex
	reads [][]byte
}

func (c *recordingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.mu.Lock()
	c.reads = append(c.reads, append([]byte(nil), p[:n]...))
	c.mu.Unlock()
	return n, err
}

// A request's head goes out in the same write as the start of its body
// (net/http writes it on its own for a body it does not know), and the
// request arrives whole: head and body as DryRun has them.
func TestWrapDialHeadWithBody(t *testing.T) {
	route := Route{Provider: "local", ModelID: "gpt-x", BaseURL: "http://model.test/v1/", API: APIOpenAICompletions, APIKey: "sk-test"}
	req := bigRequest(3)
	var server *recordingConn
	served := make(chan *http.Request, 1)
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		cli, srv := net.Pipe()
		server = &recordingConn{Conn: srv}
		go func() {
			r, err := http.ReadRequest(bufio.NewReaderSize(server, 1<<20))
			if err != nil {
				return
			}
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			served <- r
			fmt.Fprintf(server, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: %d\r\n\r\n%s", len(openAIReply), openAIReply)
		}()
		return cli, nil
	}
	tr := &http.Transport{DialContext: WrapDial(dial)}
	defer tr.CloseIdleConnections()
	c := &Client{HTTP: &http.Client{Transport: tr}}
	if _, err := c.Stream(context.Background(), route, req, nil); err != nil {
		t.Fatal(err)
	}
	r := <-served
	got, _ := io.ReadAll(r.Body)
	want, _ := DryRun(route, req)
	if !bytes.Equal(got, want) {
		t.Fatalf("the body differs from DryRun's:\n%s\n%s", got, want)
	}
	server.mu.Lock()
	first := server.reads[0]
	server.mu.Unlock()
	if !bytes.HasPrefix(first, []byte("POST /v1/chat/completions HTTP/1.1\r\n")) || !bytes.Contains(first, []byte("\r\n\r\n"+string(want[:10]))) {
		t.Errorf("the first write was %q, want the head and the body's start", first)
	}
}

func TestHeadWithBody(t *testing.T) {
	for head, want := range map[string]bool{
		"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 12\r\n\r\n":                           true,
		"POST http://x/v1 HTTP/1.1\r\nHost: x\r\ncontent-length: 1\r\nUser-Agent: pi\r\n\r\n":                   true,
		"POST /v1 HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n":                                             false,
		"POST /v1 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n":                                    false,
		"POST /v1 HTTP/1.1\r\nHost: x\r\nContent-Length: 12\r\nExpect: 100-continue\r\n\r\n":                    false,
		"POST /v1 HTTP/1.1\r\nHost: x\r\nContent-Length: 12\r\nexpect: 100-continue\r\n\r\n":                    false,
		"GET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n":                                                            false,
		"POST /v1 HTTP/1.1\r\nHost: x\r\nContent-Length: 12\r\n\r\n{\"model\":1}":                               false,
		"POST /v1 HTTP/1.1\r\nHost: x\r\nContent-Length: 12\r\n":                                                false,
		"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03POST /v1 HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\n": false,
	} {
		if got := headWithBody([]byte(head)); got != want {
			t.Errorf("headWithBody(%q) = %v, want %v", head, got, want)
		}
	}
}
