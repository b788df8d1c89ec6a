package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func mockOpenAI(t *testing.T) (*httptest.Server, func() map[string]any) {
	var mu sync.Mutex
	var last []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		last = b
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"content\":\"Hi there.\"}}]}\n\n")
		fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv, func() map[string]any {
		mu.Lock()
		defer mu.Unlock()
		var v map[string]any
		if err := json.Unmarshal(last, &v); err != nil {
			t.Fatalf("request body: %v", err)
		}
		return v
	}
}

func TestPrintModeAgainstLoopback(t *testing.T) {
	c := newCLI(t)
	srv, last := mockOpenAI(t)
	writeFiles(t, c.agentDir, map[string]string{"models.json": `{"providers":{"mock":{"baseUrl":"` + srv.URL + `/v1","api":"openai-completions","apiKey":"k","models":[{"id":"mock-1"}]}}}`})
	proj := t.TempDir()
	writeFiles(t, proj, map[string]string{"AGENTS.md": "Be terse."})

	out, errs, code := c.run("-p", "hello", "--cwd", proj)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if out != "Hi there.\n" {
		t.Fatalf("stdout %q", out)
	}
	promptText, _, _ := c.run("prompt", "--cwd", proj)
	msgs := last()["messages"].([]any)
	if sys := msgs[0].(map[string]any)["content"].(string); sys+"\n" != promptText {
		t.Fatalf("system text differs from pi prompt output")
	}
	// A prompt goes as one text part, as the established harness sends it.
	if u, _ := json.Marshal(msgs[len(msgs)-1]); string(u) != `{"content":[{"text":"hello","type":"text"}],"role":"user"}` {
		t.Fatalf("last message %s", u)
	}
	// The session file replays to the request that was sent.
	sessions, _ := filepath.Glob(filepath.Join(c.agentDir, "sessions", "*", "*.jsonl"))
	if len(sessions) != 1 {
		t.Fatalf("sessions %v", sessions)
	}
	show, errs, code := c.run("session", "show", sessions[0], "--request", "0", "--json")
	if code != 0 {
		t.Fatal(errs)
	}
	var replay struct {
		Requests []struct {
			Messages []map[string]any
		}
	}
	if err := json.Unmarshal([]byte(show), &replay); err != nil {
		t.Fatal(err)
	}
	// The replay lists a message's text parts under "parts"; the wire
	// body carries the same parts as its content.
	for _, m := range replay.Requests[0].Messages {
		if p, ok := m["parts"]; ok {
			m["content"] = p
			delete(m, "parts")
		}
	}
	if got, want := fmt.Sprint(replay.Requests[0].Messages), fmt.Sprint(msgs); got != want {
		t.Fatalf("replayed request differs:\n%q\n%q", got[len(got)-300:], want[len(want)-300:])
	}

	// --continue adds to the same file; --dry-run prints the body and sends nothing.
	if _, errs, code := c.run("-p", "more", "--cwd", proj, "-c"); code != 0 {
		t.Fatal(errs)
	}
	if n, _ := filepath.Glob(filepath.Join(c.agentDir, "sessions", "*", "*.jsonl")); len(n) != 1 {
		t.Fatalf("--continue created a new file: %v", n)
	}
	body, _, code := c.run("-p", "dry", "--cwd", proj, "--dry-run")
	if code != 0 || !strings.Contains(body, `"content":[{"type":"text","text":"dry"}]`) || !strings.Contains(body, `"model":"mock-1"`) {
		t.Fatalf("dry run: %d %s", code, body)
	}
	jsonOut, _, code := c.run("-p", "x", "--cwd", proj, "--mode", "json", "--no-session")
	if code != 0 || !strings.Contains(jsonOut, `"type":"text_delta"`) || !strings.Contains(jsonOut, `"type":"agent_end"`) {
		t.Fatalf("json mode: %s", jsonOut)
	}
}

func TestPrintModeWithoutModel(t *testing.T) {
	c := newCLI(t)
	_, errs, code := c.run("-p", "hello", "--cwd", t.TempDir())
	if code != 1 || !strings.Contains(errs, "models.json") || !strings.Contains(errs, "--dry-run") {
		t.Fatalf("exit %d: %q", code, errs)
	}
	out, _, code := c.run("-p", "hello", "--cwd", t.TempDir(), "--dry-run")
	if code != 0 || !strings.Contains(out, `"messages"`) {
		t.Fatalf("dry run without a model: %d %s", code, out)
	}
	if _, err := os.Stat(filepath.Join(c.agentDir, "sessions")); err == nil {
		t.Fatal("dry run wrote a session")
	}
}

func TestDryRunNeverWritesTheSession(t *testing.T) {
	c := newCLI(t)
	proj := t.TempDir()
	path := filepath.Join(t.TempDir(), "s.jsonl")
	torn := `{"type":"session","version":1,"id":"x","cwd":"/","timestamp":"t"}` + "\n" + `{"type":"message","message":{"role":"user","content":"earlier","timestamp":1}}` + "\n" + `{"type":"mess`
	writeFiles(t, filepath.Dir(path), map[string]string{"s.jsonl": torn})
	out, _, code := c.run("-p", "now", "--cwd", proj, "--session", path, "--dry-run")
	// A message recorded as a string is sent as one; a prompt as a list.
	if code != 0 || !strings.Contains(out, `"content":"earlier"`) || !strings.Contains(out, `"content":[{"type":"text","text":"now"}]`) {
		t.Fatalf("dry run: %d %s", code, out)
	}
	if data, _ := os.ReadFile(path); string(data) != torn {
		t.Fatal("dry run changed the session file")
	}
	missing := filepath.Join(t.TempDir(), "new.jsonl")
	if _, _, code := c.run("-p", "x", "--cwd", proj, "--session", missing, "--dry-run"); code != 0 {
		t.Fatal("dry run with a new session path failed")
	}
	if _, err := os.Stat(missing); err == nil {
		t.Fatal("dry run created a session file")
	}
}
