package provider

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestPeerRequests sends what the TypeScript pi sent (recorded in
// testdata/peer-requests) and compares bodies, paths and the API's own
// headers. Fields that depend on a session (prompt_cache_key) are left out
// of the comparison.
func TestPeerRequests(t *testing.T) {
	dir := filepath.Join("testdata", "peer-requests")
	m, err := LoadModels(filepath.Join(dir, "models.json"), fakeEnv(map[string]string{"TEAM": "core", "AZURE_OPENAI_API_KEY": "az", "ZAI_API_KEY": "z"}))
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		"completions-default": "vllm/qwen-thinking-model",
		"completions-high":    "vllm/qwen-thinking-model:high",
		"responses-low":       "resp/r1:low",
		"google-default":      "goog/gemini-2.5-flash",
		"anthropic-low":       "anth/claude-x:low",
		"gateway-default":     "gateway/big",
		"gateway-minimal":     "gateway/big:minimal",
		"ollama-default":      "ollama/qwen2.5-coder:7b",
		"azure-low":           "azure/dep:low",
		"anthropic-default":   "anth/claude-x",
		"responses-default":   "resp/r1",
		"zai-high":            "zai/glm:high",
	}
	for name, model := range cases {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			var rec struct {
				Path    string
				Headers map[string]string
				Body    map[string]any
			}
			if err := json.Unmarshal(data, &rec); err != nil {
				t.Fatal(err)
			}
			sel, err := m.Select(Selection{Model: model})
			if err != nil {
				t.Fatal(err)
			}
			body, err := DryRun(sel.Route, Request{Messages: []Message{{Role: RoleSystem, Content: "You are pi."}, {Role: RoleUser, Parts: []Part{{Type: PartText, Text: "Hi"}}}}})
			if err != nil {
				t.Fatal(err)
			}
			var got map[string]any
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatal(err)
			}
			delete(rec.Body, "prompt_cache_key")
			if !reflect.DeepEqual(got, rec.Body) {
				g, _ := json.Marshal(got)
				w, _ := json.Marshal(rec.Body)
				t.Errorf("body\n got %s\nwant %s", g, w)
			}
			info, err := DescribeRequest(sel.Route)
			if err != nil {
				t.Fatal(err)
			}
			u, _ := url.Parse(info.URL)
			path := u.Path
			if u.RawQuery != "" {
				path += "?" + u.RawQuery
			}
			if want := rec.Path; path != want {
				t.Errorf("path %s, want %s", path, want)
			}
			hdr := sel.Route.header()
			sel.Route.affinity(hdr, "the-session")
			// The session affinity headers carry the session id: the same
			// names must be there (with this test's id). Only the later
			// recordings kept every header.
			if name == "anthropic-default" || name == "responses-default" {
				for _, h := range []string{"session-id", "x-client-request-id", "x-session-id", "session_id", "x-session-affinity"} {
					if _, want := rec.Headers[h]; want != (hdr.Get(h) == "the-session") {
						t.Errorf("session affinity header %s: %q, recorded: %v", h, hdr.Get(h), want)
					}
				}
			}
			for _, h := range []string{"accept", "anthropic-version", "anthropic-beta", "content-type", "authorization", "x-api-key", "x-goog-api-key", "api-key", "x-team", "x-literal", "x-model"} {
				if w, ok := rec.Headers[h]; ok && hdr.Get(h) != w {
					t.Errorf("header %s: %q, want %q", h, hdr.Get(h), w)
				}
			}
		})
	}
}
