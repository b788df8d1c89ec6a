package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Weakness (issue 32): the entry's headers and the stored OAuth token were
// set on every request the HTTP client made, the ones after a redirect
// included, so a server answering 307 to another host received them. Two
// loopback servers: the entry's redirects, the other is a working MCP
// server that records what it was sent. pi must not follow the redirect,
// must send the other server nothing, and must say why the entry failed.
func TestHTTPCredentialsStayWithTheEntrysOrigin(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "elsewhere", Version: "1"}, nil)
	srv.AddTool(&sdk.Tool{Name: "t", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{}, nil
	})
	mcpHandler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	var mu sync.Mutex
	var seen []http.Header
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Clone())
		mu.Unlock()
		mcpHandler.ServeHTTP(w, r)
	}))
	defer other.Close()
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/mcp", http.StatusTemporaryRedirect)
	}))
	defer redirector.Close()

	for _, tc := range []struct{ name, url string }{
		{"another port", redirector.URL + "/mcp"},
		// The same server reached under another host name is another
		// origin too.
		{"another host", strings.Replace(redirector.URL, "127.0.0.1", "localhost", 1) + "/mcp"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mu.Lock()
			seen = nil
			mu.Unlock()
			cfg := &Config{Servers: []*Server{{
				Name: "web", Transport: "http", URL: tc.url, Timeout: 10 * time.Second, Enabled: true, Exposure: Direct,
				Headers: [][2]string{{"X-Api-Key", "header-secret"}},
			}}}
			m := NewManager(cfg, Options{Auth: func(*Server) string { return "token-secret" }})
			defer m.Close()
			m.Start()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			m.WaitAll(ctx)
			st := m.Status()[0]
			mu.Lock()
			defer mu.Unlock()
			for _, h := range seen {
				if h.Get("Authorization") != "" || h.Get("X-Api-Key") != "" {
					t.Errorf("the other origin received the entry's credentials: %v", h)
				}
			}
			if len(seen) > 0 {
				t.Errorf("the redirect was followed: %d requests reached the other server", len(seen))
			}
			if st.State != StateFailed || !strings.Contains(st.Error, "another origin") {
				t.Errorf("state %s, error %q: want failed, saying the redirect went to another origin", st.State, st.Error)
			}
		})
	}
}

// Same-origin redirects keep working, with the credentials; origins are
// compared as browsers do.
func TestOriginOf(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"https://x.example/mcp", "https://x.example:443/other", true},
		{"http://x.example/mcp", "http://X.EXAMPLE:80/", true},
		{"https://x.example/mcp", "http://x.example/mcp", false},
		{"https://x.example/mcp", "https://x.example:8443/mcp", false},
		{"https://x.example/mcp", "https://y.example/mcp", false},
		{"http://127.0.0.1:3000/mcp", "http://localhost:3000/mcp", false},
		{"http://[::1]:3000/a", "http://[::1]:3000/b", true},
	} {
		a, _ := url.Parse(tc.a)
		b, _ := url.Parse(tc.b)
		if got := originOf(a) == originOf(b); got != tc.same {
			t.Errorf("%s and %s: same origin %v, want %v", tc.a, tc.b, got, tc.same)
		}
	}
}
