package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// betaSeen is the anthropic-beta header of keyServer's last request.
var betaSeen atomic.Value

// keyServer is an OpenAI-compatible loopback model that records the
// Authorization header of each request.
func keyServer(t *testing.T) (string, func() string) {
	var mu sync.Mutex
	var last string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		last = r.Header.Get("Authorization") + "|" + r.Header.Get("X-Api-Key")
		betaSeen.Store(r.Header.Get("Anthropic-Beta"))
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write([]byte("data: {\"choices\":[{\"delta\":{\"content\":\"ok\"}}]}\n\ndata: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"))
	}))
	t.Cleanup(srv.Close)
	return srv.URL, func() string { mu.Lock(); defer mu.Unlock(); return last }
}

// Keys come from --api-key, then auth.json, then the environment; pi auth
// login writes auth.json with mode 0600 and logout removes the entry.
func TestAuthJSONPrecedence(t *testing.T) {
	c := newCLI(t)
	url, last := keyServer(t)
	writeFiles(t, c.agentDir, map[string]string{"models.json": `{"providers":{"openai":{"baseUrl":"` + url + `/v1","api":"openai-completions","models":[{"id":"gpt-x"}]}}}`})
	c.env = map[string]string{"OPENAI_API_KEY": "from-env"}
	run := func(args ...string) string {
		t.Helper()
		if _, errs, code := c.run(append([]string{"-p", "--no-session", "--cwd", t.TempDir()}, append(args, "hi")...)...); code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		return last()
	}
	if got := run(); got != "Bearer from-env|" {
		t.Errorf("environment: %q", got)
	}
	c.stdinText = "from-auth-json\n"
	if out, errs, code := c.run("auth", "login", "openai"); code != 0 || !strings.Contains(out, "stored an API key for openai") {
		t.Fatalf("pi auth login: %d %s %s", code, out, errs)
	}
	c.stdinText = ""
	fi, err := os.Stat(filepath.Join(c.agentDir, "auth.json"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("auth.json: %v %v", fi, err)
	}
	if got := run(); got != "Bearer from-auth-json|" {
		t.Errorf("auth.json over the environment: %q", got)
	}
	if got := run("--api-key", "from-flag"); got != "Bearer from-flag|" {
		t.Errorf("--api-key over auth.json: %q", got)
	}
	out, _, _ := c.run("auth", "status")
	if !strings.Contains(out, "openai\tapi_key") || strings.Contains(out, "from-auth-json") {
		t.Errorf("pi auth status: %q", out)
	}
	if _, errs, code := c.run("auth", "logout", "openai"); code != 0 {
		t.Fatal(errs)
	}
	if got := run(); got != "Bearer from-env|" {
		t.Errorf("after logout: %q", got)
	}
	// A key stored by the TypeScript pi as a command.
	writeFiles(t, c.agentDir, map[string]string{"auth.json": `{"openai":{"type":"api_key","key":"!echo from-command"}}`})
	if got := run(); got != "Bearer from-command|" {
		t.Errorf("auth.json command key: %q", got)
	}
	// A broken auth.json is an error naming it.
	writeFiles(t, c.agentDir, map[string]string{"auth.json": `{"openai":{"type":"password"}}`})
	if _, errs, code := c.run("-p", "--no-session", "--cwd", t.TempDir(), "hi"); code == 0 || !strings.Contains(errs, "auth.json") {
		t.Errorf("bad auth.json: exit %d, %s", code, errs)
	}
}

// ANTHROPIC_AUTH_TOKEN is sent as a bearer token, not as x-api-key.
func TestAnthropicAuthToken(t *testing.T) {
	c := newCLI(t)
	url, last := keyServer(t)
	lastBeta := func() string { return betaSeen.Load().(string) }
	writeFiles(t, c.agentDir, map[string]string{"models.json": `{"providers":{"anthropic":{"baseUrl":"` + url + `","models":[{"id":"claude-x"}]}}}`})
	c.env = map[string]string{"ANTHROPIC_AUTH_TOKEN": "tok", "ANTHROPIC_API_KEY": "key"}
	c.run("-p", "--no-session", "--cwd", t.TempDir(), "hi")
	if got := last(); got != "Bearer tok|" {
		t.Errorf("headers %q", got)
	}
	c.env = map[string]string{"ANTHROPIC_API_KEY": "key"}
	c.run("-p", "--no-session", "--cwd", t.TempDir(), "hi")
	if got := last(); got != "|key" {
		t.Errorf("headers %q", got)
	}
	// An OAuth token goes as a bearer token with the OAuth beta features,
	// from the environment or from an oauth entry of auth.json while valid.
	c.env = map[string]string{"ANTHROPIC_OAUTH_TOKEN": "sk-ant-oat-1", "ANTHROPIC_API_KEY": "key"}
	c.run("-p", "--no-session", "--cwd", t.TempDir(), "hi")
	if got := last(); got != "Bearer sk-ant-oat-1|" || !strings.Contains(lastBeta(), "oauth-2025-04-20") {
		t.Errorf("ANTHROPIC_OAUTH_TOKEN: headers %q, beta %q", got, lastBeta())
	}
	c.env = nil
	writeFiles(t, c.agentDir, map[string]string{"auth.json": `{"anthropic":{"type":"oauth","access":"stored-access","refresh":"r","expires":99999999999999}}`})
	c.run("-p", "--no-session", "--cwd", t.TempDir(), "hi")
	if got := last(); got != "Bearer stored-access|" || !strings.Contains(lastBeta(), "oauth-2025-04-20") {
		t.Errorf("auth.json oauth: headers %q, beta %q", got, lastBeta())
	}
}

// TestAuthWithoutSubcommand: pi auth alone says once which subcommands
// there are, on stderr, and exits 2 (it printed the usage with six, then
// a line naming three).
func TestAuthWithoutSubcommand(t *testing.T) {
	c := newCLI(t)
	out, errs, code := c.run("auth")
	if code != 2 || out != "" {
		t.Errorf("exit %d, stdout %q; want 2 and nothing on stdout", code, out)
	}
	for _, sub := range []string{"login", "logout", "status", "check", "print-api-key", "print-bearer-token"} {
		if !strings.Contains(errs, sub) {
			t.Errorf("stderr does not name %s: %q", sub, errs)
		}
	}
	if n := strings.Count(errs, "\n"); n != 1 {
		t.Errorf("stderr has %d lines, want one: %q", n, errs)
	}
}
