package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/piwasm/pi/internal/scripted"
)

// TestContextHookTrimsRequestsNotTheSession: with the trim-tool-output
// example, the last request carries the newest four tool results whole
// and notes for the older ones; the system prompt is untouched and the
// session file keeps every result.
func TestContextHookTrimsRequestsNotTheSession(t *testing.T) {
	c := newCLI(t)
	var replies []scripted.Reply
	for i := range 6 {
		replies = append(replies, scripted.Reply{Calls: []scripted.Call{{ID: fmt.Sprint("c", i), Name: "bash", Args: json.RawMessage(fmt.Sprintf(`{"command":"echo result-number-%d"}`, i))}}})
	}
	replies = append(replies, scripted.Reply{Text: "done"})
	s := scriptedModel(t, c, "openai-completions", replies)
	file := filepath.Join(c.home, "s.jsonl")
	ext := examplePlugin(t, "trim-tool-output")
	if out, errs, code := c.run("-p", "--no-extensions", "-e", ext, "--session", file, "--sandbox", "off", "run six commands"); code != 0 {
		t.Fatalf("exit %d: %s %s", code, out, errs)
	}
	reqs := s.Requests()
	if len(reqs) != 7 {
		t.Fatalf("%d requests", len(reqs))
	}
	last := string(reqs[6])
	for i := range 6 {
		want := fmt.Sprintf("result-number-%d\\n", i)
		if whole := strings.Contains(last, want); whole != (i >= 2) {
			t.Errorf("result %d whole in the last request: %v", i, whole)
		}
	}
	if n := strings.Count(last, "left out of this request"); n != 2 {
		t.Errorf("%d notes in the last request, want 2", n)
	}
	if !strings.Contains(last, `"role":"system"`) || !strings.Contains(last, "run six commands") {
		t.Errorf("the system prompt or the task went missing: %.400s", last)
	}
	// The first requests had four results or fewer: sent as they were.
	if strings.Contains(string(reqs[4]), "left out") {
		t.Error("a request with four results was trimmed")
	}
	raw := readFile(t, file)
	for i := range 6 {
		if !strings.Contains(raw, fmt.Sprintf("result-number-%d", i)) {
			t.Errorf("the session lost result %d", i)
		}
	}
	if strings.Contains(raw, "left out of this request") {
		t.Error("the trimmed text reached the session file")
	}
}

// TestBeforeProviderRequestPatchesTheBody: the request-fields example sets
// its configured field in the body sent; the user's extensionConfig
// replaces the manifest's; other API shapes are left alone.
func TestBeforeProviderRequestPatchesTheBody(t *testing.T) {
	c := newCLI(t)
	s := scriptedModel(t, c, "openai-completions", []scripted.Reply{{Text: "one"}, {Text: "two"}})
	ext := examplePlugin(t, "request-fields")
	if out, errs, code := c.run("-p", "--no-extensions", "-e", ext, "--no-session", "hello"); code != 0 {
		t.Fatalf("exit %d: %s %s", code, out, errs)
	}
	writeFiles(t, c.agentDir, map[string]string{"settings.json": `{"extensionConfig":{"request-fields":{"apis":["openai-completions"],"set":{"temperature":0.25,"stream_options":null}}}}`})
	if out, errs, code := c.run("-p", "--no-extensions", "-e", ext, "--no-session", "again"); code != 0 {
		t.Fatalf("exit %d: %s %s", code, out, errs)
	}
	reqs := s.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	first, second := string(reqs[0]), string(reqs[1])
	if !strings.Contains(first, `"service_tier":"flex"`) || !strings.Contains(first, `"messages"`) {
		t.Errorf("the manifest's field is not in the body: %.300s", first)
	}
	if strings.Contains(second, "service_tier") || !strings.Contains(second, `"temperature":0.25`) || strings.Contains(second, "stream_options") {
		t.Errorf("extensionConfig did not replace the manifest's config: %.300s", second)
	}
}
