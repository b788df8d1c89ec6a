package auth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/piwasm/pi/internal/atomicfile"
)

// FileName is the name of the credentials file in the agent dir.
const FileName = "auth.json"

// maxFileBytes caps auth.json: it holds a few keys and tokens.
const maxFileBytes = 1 << 20

// Credential is one provider's entry. Type is "api_key" or "oauth".
// Key may be a literal, "$VAR" or "!command" (resolved by the caller as
// models.json values are); Env holds variables for that provider that win
// over the process environment. Expires is in Unix milliseconds.
type Credential struct {
	Type    string            `json:"type"`
	Key     string            `json:"key,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Access  string            `json:"access,omitempty"`
	Refresh string            `json:"refresh,omitempty"`
	Expires int64             `json:"expires,omitempty"`
}

// Store is the content of one auth.json.
type Store struct {
	Path    string
	entries map[string]json.RawMessage
}

// Load reads path. A missing file is an empty store; a file that is not a
// regular file, is too large, is not a JSON object or holds an entry of
// the wrong shape is an error naming the file (and the provider).
func Load(path string) (*Store, error) {
	s := &Store{Path: path, entries: map[string]json.RawMessage{}}
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(data) > maxFileBytes {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, maxFileBytes)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return s, nil
	}
	if err := json.Unmarshal(data, &s.entries); err != nil || s.entries == nil {
		return nil, fmt.Errorf("%s: invalid auth.json: expected an object of providers", path)
	}
	for name := range s.entries {
		if _, err := s.Get(name); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Get returns the credential of provider; an error when the entry is not
// a valid api_key or oauth credential. A provider without an entry gives a
// zero Credential and no error.
func (s *Store) Get(provider string) (Credential, error) {
	raw, ok := s.entries[provider]
	if !ok {
		return Credential{}, nil
	}
	var c Credential
	bad := fmt.Errorf("%s: invalid credential for provider %q", s.Path, provider)
	if err := json.Unmarshal(raw, &c); err != nil {
		return Credential{}, bad
	}
	switch c.Type {
	case "api_key":
	case "oauth":
		if c.Access == "" || c.Refresh == "" || c.Expires == 0 {
			return Credential{}, bad
		}
	default:
		return Credential{}, bad
	}
	return c, nil
}

// Providers lists the providers with an entry, sorted.
func (s *Store) Providers() []string {
	out := make([]string, 0, len(s.entries))
	for n := range s.entries {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// SetAPIKey stores an API key for provider and writes the file.
func (s *Store) SetAPIKey(provider, key string) error {
	if strings.TrimSpace(provider) == "" || strings.TrimSpace(key) == "" {
		return errors.New("auth: a provider and a key are needed")
	}
	raw, _ := json.Marshal(Credential{Type: "api_key", Key: key})
	s.entries[provider] = raw
	return s.save()
}

// Remove deletes provider's entry and writes the file; false when there
// was none.
func (s *Store) Remove(provider string) (bool, error) {
	if _, ok := s.entries[provider]; !ok {
		return false, nil
	}
	delete(s.entries, provider)
	return true, s.save()
}

// save writes the store with mode 0600, replacing the file atomically.
func (s *Store) save() error {
	data, err := json.MarshalIndent(s.entries, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dirOf(s.Path), 0o700); err != nil {
		return fmt.Errorf("auth: %w", err)
	}
	if err := atomicfile.Write(s.Path, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("auth: writing %s: %w", s.Path, err)
	}
	return nil
}

func dirOf(p string) string {
	i := strings.LastIndexAny(p, `/\`)
	if i <= 0 {
		return "."
	}
	return p[:i]
}

// Endpoint is a provider's OAuth token endpoint.
type Endpoint struct {
	URL      string
	ClientID string
}

// TokenEndpoints are the token endpoints of the providers whose OAuth
// tokens pi can refresh, as the established harness refreshes them.
func TokenEndpoints() map[string]Endpoint {
	return map[string]Endpoint{
		"anthropic": {URL: "https://platform.claude.com/v1/oauth/token", ClientID: "9d1c250a-e61b-44d9-88ed-5944d1962f5e"},
	}
}

// Refresher refreshes expired OAuth tokens. Endpoints defaults to
// [TokenEndpoints], HTTP to http.DefaultClient, Now to time.Now.
type Refresher struct {
	Endpoints map[string]Endpoint
	HTTP      *http.Client
	Now       func() time.Time
}

// AccessToken returns provider's OAuth access token: the stored one while
// it is valid, else a new one from the provider's token endpoint, which is
// stored (with the new refresh token and expiry) before it is returned.
// ok is false when the provider has no OAuth entry.
func (s *Store) AccessToken(ctx context.Context, provider string, r Refresher) (token string, ok bool, err error) {
	c, err := s.Get(provider)
	if err != nil || c.Type != "oauth" {
		return "", false, err
	}
	now := time.Now
	if r.Now != nil {
		now = r.Now
	}
	if now().UnixMilli() < c.Expires {
		return c.Access, true, nil
	}
	eps := r.Endpoints
	if eps == nil {
		eps = TokenEndpoints()
	}
	ep, known := eps[provider]
	if !known {
		return "", true, fmt.Errorf("the OAuth token of %q in %s has expired and pi cannot refresh tokens of this provider; log in again with the TypeScript pi", provider, s.Path)
	}
	body, _ := json.Marshal(map[string]string{"grant_type": "refresh_token", "client_id": ep.ClientID, "refresh_token": c.Refresh})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ep.URL, bytes.NewReader(body))
	if err != nil {
		return "", true, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	hc := r.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return "", true, fmt.Errorf("refreshing the OAuth token of %q: %w", provider, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode != http.StatusOK {
		return "", true, fmt.Errorf("refreshing the OAuth token of %q: %s", provider, resp.Status)
	}
	var tok struct {
		AccessToken  string  `json:"access_token"`
		RefreshToken string  `json:"refresh_token"`
		ExpiresIn    float64 `json:"expires_in"`
	}
	if err := json.Unmarshal(raw, &tok); err != nil || tok.AccessToken == "" || tok.ExpiresIn <= 0 {
		return "", true, fmt.Errorf("refreshing the OAuth token of %q: the token endpoint's answer has no access_token and expires_in", provider)
	}
	// Keep the entry's other fields; replace the tokens.
	var m map[string]json.RawMessage
	_ = json.Unmarshal(s.entries[provider], &m)
	set := func(k string, v any) { b, _ := json.Marshal(v); m[k] = b }
	set("access", tok.AccessToken)
	if tok.RefreshToken != "" {
		set("refresh", tok.RefreshToken)
	}
	// Stored five minutes early, as the established harness does.
	set("expires", now().UnixMilli()+int64(tok.ExpiresIn*1000)-5*60*1000)
	s.entries[provider], _ = json.Marshal(m)
	if err := s.save(); err != nil {
		return "", true, err
	}
	return tok.AccessToken, true, nil
}
