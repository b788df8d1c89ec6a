package auth

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestLoadValidatesEntries(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ content, err string }{
		{``, ""},
		{`{"anthropic":{"type":"api_key","key":"k"},"x":{"type":"oauth","access":"a","refresh":"r","expires":1}}`, ""},
		{`[1]`, "expected an object"},
		{`{"a":{"type":"password"}}`, `provider "a"`},
		{`{"a":{"type":"oauth","access":"a"}}`, `provider "a"`},
		{`{"a":1}`, `provider "a"`},
	} {
		p := filepath.Join(dir, "auth.json")
		os.WriteFile(p, []byte(tc.content), 0o600)
		_, err := Load(p)
		if (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) || err != nil && !strings.Contains(err.Error(), p) {
			t.Errorf("%s: error %v, want %q", tc.content, err, tc.err)
		}
	}
	if _, err := Load(dir); err == nil {
		t.Error("a directory was read as auth.json")
	}
	if s, err := Load(filepath.Join(dir, "none.json")); err != nil || len(s.Providers()) != 0 {
		t.Error("a missing file is an empty store")
	}
}

// API keys are written 0600, other entries and fields are kept.
func TestSetAndRemoveKeepOtherEntries(t *testing.T) {
	p := filepath.Join(t.TempDir(), "agent", "auth.json")
	os.MkdirAll(filepath.Dir(p), 0o700)
	os.WriteFile(p, []byte(`{"openai":{"type":"oauth","access":"a","refresh":"r","expires":5,"accountId":"acc"}}`), 0o644)
	s, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetAPIKey("anthropic", "sk-1"); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(p)
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode().Perm())
	}
	data, _ := os.ReadFile(p)
	if !strings.Contains(string(data), `"accountId": "acc"`) || !strings.Contains(string(data), `"key": "sk-1"`) {
		t.Errorf("file %s", data)
	}
	if ok, err := s.Remove("anthropic"); !ok || err != nil {
		t.Fatal(ok, err)
	}
	s2, _ := Load(p)
	if got := strings.Join(s2.Providers(), ","); got != "openai" {
		t.Errorf("providers %s", got)
	}
}

// An expired OAuth token is refreshed at the provider's token endpoint
// (here a loopback one) and the new tokens are stored; a valid one is used
// as it is.
func TestAccessTokenRefreshes(t *testing.T) {
	var got map[string]string
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		b, _ := io.ReadAll(r.Body)
		json.Unmarshal(b, &got)
		w.Write([]byte(`{"access_token":"new-access","refresh_token":"new-refresh","expires_in":3600}`))
	}))
	defer srv.Close()
	now := time.UnixMilli(1_000_000_000)
	p := filepath.Join(t.TempDir(), "auth.json")
	os.WriteFile(p, []byte(`{"anthropic":{"type":"oauth","access":"old","refresh":"old-refresh","expires":999999000},"b":{"type":"oauth","access":"fresh","refresh":"r","expires":2000000000}}`), 0o600)
	s, _ := Load(p)
	r := Refresher{Endpoints: map[string]Endpoint{"anthropic": {URL: srv.URL, ClientID: "cid"}}, Now: func() time.Time { return now }}
	tok, ok, err := s.AccessToken(context.Background(), "anthropic", r)
	if err != nil || !ok || tok != "new-access" {
		t.Fatalf("token %q %v %v", tok, ok, err)
	}
	if got["grant_type"] != "refresh_token" || got["refresh_token"] != "old-refresh" || got["client_id"] != "cid" {
		t.Errorf("refresh request %v", got)
	}
	s2, _ := Load(p)
	c, _ := s2.Get("anthropic")
	if c.Access != "new-access" || c.Refresh != "new-refresh" || c.Expires != now.UnixMilli()+3600_000-300_000 {
		t.Errorf("stored %+v", c)
	}
	if tok, _, _ := s.AccessToken(context.Background(), "b", r); tok != "fresh" || calls != 1 {
		t.Errorf("a valid token was refreshed: %q, %d calls", tok, calls)
	}
	if _, _, err := s.AccessToken(context.Background(), "anthropic", Refresher{Endpoints: map[string]Endpoint{}, Now: func() time.Time { return now.Add(2 * time.Hour) }}); err == nil {
		t.Error("an expired token of a provider without an endpoint gave no error")
	}
}
