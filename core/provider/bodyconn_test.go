package provider

import (
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
