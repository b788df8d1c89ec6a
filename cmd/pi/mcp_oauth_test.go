//go:build unix

package main

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/piwasm/pi/internal/scripted"
)

// The tests' "browser": pi mcp login runs $BROWSER URL; with
// PI_TEST_FETCH=1 this test binary fetches the URL, following the
// authorization server's redirect to pi's loopback listener, as a person
// approving the sign-in would.
func init() {
	if os.Getenv("PI_TEST_FETCH") == "forge" && len(os.Args) == 2 && strings.HasPrefix(os.Args[1], "http") {
		forgeThenFetch(os.Args[1], os.Getenv("PI_TEST_FETCH_LOG"))
		os.Exit(0)
	}
	if os.Getenv("PI_TEST_FETCH") == "1" && len(os.Args) == 2 && strings.HasPrefix(os.Args[1], "http") {
		resp, err := http.Get(os.Args[1])
		if err != nil {
			os.Exit(1)
		}
		resp.Body.Close()
		os.Exit(0)
	}
}

// forgeThenFetch is a hostile "browser" (PI_TEST_FETCH=forge): before the
// real sign-in it sends pi's loopback listener a forged redirect (an
// attacker's code under a made-up state) and a forged refusal; then it
// approves as a person would, and replays the redirect that signed in.
// Each request's outcome goes to the file log, one "name status" a line.
func forgeThenFetch(authURL, log string) {
	var lines []string
	get := func(name, u string) *http.Response {
		resp, err := http.Get(u)
		if err != nil {
			lines = append(lines, name+" error")
			return nil
		}
		resp.Body.Close()
		lines = append(lines, fmt.Sprintf("%s %d", name, resp.StatusCode))
		return resp
	}
	au, _ := url.Parse(authURL)
	back := au.Query().Get("redirect_uri")
	get("forged", back+"?code=evil-code&state=forged-state")
	get("refusal", back+"?error=access_denied&state=forged-state")
	get("nostate", back+"?code=evil-code")
	if resp := get("genuine", authURL); resp != nil {
		get("replay", resp.Request.URL.String())
	}
	os.WriteFile(log, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
}

// authServer is a loopback OAuth authorization server in front of an MCP
// server: protected resource metadata, authorization server metadata,
// dynamic registration, an authorization endpoint that approves at once,
// and a token endpoint that checks the PKCE verifier.
type authServer struct {
	t    *testing.T
	url  string
	mu   sync.Mutex
	pkce string // the S256 challenge of the last authorization
	reg  string // the client name registered
}

func newAuthServer(t *testing.T) *authServer {
	a := &authServer{t: t}
	server := sdk.NewServer(&sdk.Implementation{Name: "private"}, nil)
	sdk.AddTool(server, &sdk.Tool{Name: "greet", Description: "say hi"}, func(ctx context.Context, req *sdk.CallToolRequest, args struct {
		Name string `json:"name"`
	}) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "Hi " + args.Name + ", signed in"}}}, nil, nil
	})
	mcpHandler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, nil)
	mux := http.NewServeMux()
	writeJSON := func(w http.ResponseWriter, code int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		json.NewEncoder(w).Encode(v)
	}
	prm := func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]any{"resource": a.url + "/mcp", "authorization_servers": []string{a.url}, "scopes_supported": []string{"tools"}})
	}
	mux.HandleFunc("/.well-known/oauth-protected-resource", prm)
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", prm)
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]any{"issuer": a.url, "authorization_endpoint": a.url + "/authorize", "token_endpoint": a.url + "/token",
			"registration_endpoint": a.url + "/register", "response_types_supported": []string{"code"}, "code_challenge_methods_supported": []string{"S256"},
			"grant_types_supported": []string{"authorization_code", "refresh_token"}, "token_endpoint_auth_methods_supported": []string{"none"}})
	})
	mux.HandleFunc("/register", func(w http.ResponseWriter, r *http.Request) {
		var m map[string]any
		json.NewDecoder(r.Body).Decode(&m)
		a.mu.Lock()
		a.reg, _ = m["client_name"].(string)
		a.mu.Unlock()
		m["client_id"] = "client-1"
		writeJSON(w, 201, m)
	})
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("client_id") != "client-1" || q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" {
			http.Error(w, "bad authorization request: "+r.URL.RawQuery, 400)
			return
		}
		a.mu.Lock()
		a.pkce = q.Get("code_challenge")
		a.mu.Unlock()
		back, _ := url.Parse(q.Get("redirect_uri"))
		v := back.Query()
		v.Set("code", "code-1")
		v.Set("state", q.Get("state"))
		back.RawQuery = v.Encode()
		http.Redirect(w, r, back.String(), http.StatusFound)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		sum := sha256.Sum256([]byte(r.Form.Get("code_verifier")))
		a.mu.Lock()
		ok := r.Form.Get("grant_type") == "authorization_code" && r.Form.Get("code") == "code-1" && base64.RawURLEncoding.EncodeToString(sum[:]) == a.pkce
		a.mu.Unlock()
		if !ok {
			writeJSON(w, 400, map[string]string{"error": "invalid_grant"})
			return
		}
		writeJSON(w, 200, map[string]any{"access_token": "token-1", "token_type": "Bearer", "expires_in": 3600, "refresh_token": "refresh-1"})
	})
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer token-1" {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+a.url+`/.well-known/oauth-protected-resource/mcp"`)
			http.Error(w, "sign in first", http.StatusUnauthorized)
			return
		}
		mcpHandler.ServeHTTP(w, r)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	a.url = srv.URL
	return a
}

// An HTTP server that asks for OAuth: pi mcp list says it needs sign-in,
// pi mcp login signs in (dynamic registration as "pi", the authorization
// code with PKCE through a loopback redirect) and stores the token 0600;
// a session then calls the server's tool; pi mcp logout forgets it.
func TestMCPOAuthSignIn(t *testing.T) {
	as := newAuthServer(t)
	c := newCLI(t)
	writeFiles(t, c.agentDir, map[string]string{"mcp.json": mcpJSON(t, map[string]any{"web": map[string]any{"url": as.url + "/mcp"}})})

	out, _, code := c.runPi(nil, "mcp", "list")
	if code != 1 || !strings.Contains(out, "web: needs-auth") || !strings.Contains(out, "pi mcp login web") {
		t.Errorf("before sign-in: exit %d\n%s", code, out)
	}
	out, errs, code := c.runPi([]string{"BROWSER=" + os.Args[0], "PI_TEST_FETCH=1"}, "mcp", "login", "web", "--timeout", "60")
	if code != 0 || !strings.Contains(out, `Signed in to MCP server "web"`) || !strings.Contains(errs, as.url+"/authorize?") {
		t.Fatalf("login: exit %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
	if as.reg != "pi" {
		t.Errorf("registered as %q, want pi", as.reg)
	}
	file := filepath.Join(c.agentDir, "mcp-auth.json")
	fi, err := os.Stat(file)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the credentials file: %v %v", err, fi)
	}
	if raw, _ := os.ReadFile(file); !strings.Contains(string(raw), "token-1") || !strings.Contains(string(raw), "refresh-1") {
		t.Errorf("the stored credentials: %s", raw)
	}

	s := scriptedModel(t, c, "openai-completions", []scripted.Reply{
		{Calls: []scripted.Call{{ID: "c1", Name: "mcp__web__greet", Args: json.RawMessage(`{"name":"pi"}`)}}},
		{Text: "done"},
	})
	out, errs, code = c.runPi(nil, "-p", "--no-extensions", "hi")
	if code != 0 || out != "done\n" || !strings.Contains(string(s.Requests()[1]), "Hi pi, signed in") {
		t.Errorf("session after sign-in: exit %d\nstdout: %s\nstderr: %s", code, out, errs)
	}

	if out := c.must("mcp", "logout", "web"); !strings.Contains(out, "Signed out") {
		t.Errorf("logout: %s", out)
	}
	if raw, _ := os.ReadFile(file); strings.Contains(string(raw), "token-1") {
		t.Errorf("logout kept the token")
	}
}

// Hostile case (issue 32): the loopback listener of pi mcp login takes
// requests from anything on the machine. A forged redirect (an attacker's
// code, a made-up state), a forged refusal and one without a state, all
// sent before the real one, are refused and reported, and neither end nor
// decide the sign-in; the real redirect signs in; replaying it is refused.
func TestMCPOAuthCallbackRefusesForgedAndReplayed(t *testing.T) {
	as := newAuthServer(t)
	c := newCLI(t)
	writeFiles(t, c.agentDir, map[string]string{"mcp.json": mcpJSON(t, map[string]any{"web": map[string]any{"url": as.url + "/mcp"}})})
	log := filepath.Join(t.TempDir(), "browser.log")
	out, errs, code := c.runPi([]string{"BROWSER=" + os.Args[0], "PI_TEST_FETCH=forge", "PI_TEST_FETCH_LOG=" + log}, "mcp", "login", "web", "--timeout", "60")
	if code != 0 || !strings.Contains(out, `Signed in to MCP server "web"`) {
		t.Fatalf("login: exit %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
	// The browser replays after pi got what it needed: wait for its log.
	var got string
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if b, err := os.ReadFile(log); err == nil && strings.Contains(string(b), "replay") {
			got = string(b)
			break
		}
	}
	for _, want := range []string{"forged 400\n", "refusal 400\n", "nostate 400\n", "genuine 200\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("the browser's log lacks %q:\n%s", want, got)
		}
	}
	if !strings.Contains(got, "replay ") || strings.Contains(got, "replay 200") {
		t.Errorf("the replayed redirect was not refused:\n%s", got)
	}
	if n := strings.Count(errs, "refused a request to the sign-in's loopback address"); n < 3 {
		t.Errorf("%d refused requests reported, want 3 or more:\n%s", n, errs)
	}
	if raw, _ := os.ReadFile(filepath.Join(c.agentDir, "mcp-auth.json")); !strings.Contains(string(raw), "token-1") {
		t.Errorf("the sign-in was not stored: %s", raw)
	}
}
