package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/piwasm/pi/internal/scripted"
)

// TestOverflowRecoveryExitsZero drives the binary as a user would: a
// session of two prompts, then a third whose request the provider refuses
// with a 400 "maximum context length" error. pi compacts (reason
// overflow, reported in JSON mode), retries from the user's message and
// exits 0 with the answer; the session file still holds every message
// (`pi session show` lists them), with the context_edit and the
// compaction.
func TestOverflowRecoveryExitsZero(t *testing.T) {
	c := newCLI(t)
	scriptedModel(t, c, "openai-completions", []scripted.Reply{
		{Text: "First answer."},
		{Text: "Second answer."},
		{Status: 400, Error: "This model's maximum context length is 2000 tokens. However, your messages resulted in 9000 tokens."},
		{Text: "## Goal\nSUMMARY"},
		{Text: "Recovered."},
	})
	writeFiles(t, c.agentDir, map[string]string{"settings.json": `{"compaction":{"keepRecentTokens":1}}`})
	file := filepath.Join(c.home, "s.jsonl")
	for _, p := range []string{"one", "two"} {
		if _, stderr, code := c.run("-p", "--session", file, p); code != 0 {
			t.Fatalf("%s: exit %d: %s", p, code, stderr)
		}
	}
	stdout, stderr, code := c.run("--mode", "json", "--session", file, "three")
	if code != 0 {
		t.Fatalf("exit %d after an overflow: %s", code, stderr)
	}
	var kinds []string
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var e struct {
			Type      string `json:"type"`
			Reason    string `json:"reason"`
			WillRetry bool   `json:"willRetry"`
			Result    *struct {
				Summary string `json:"summary"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("not JSON: %s", line)
		}
		switch e.Type {
		case "compaction_start":
			kinds = append(kinds, e.Type+":"+e.Reason)
		case "compaction_end":
			if e.Result == nil || !strings.HasPrefix(e.Result.Summary, "## Goal\nSUMMARY") || !e.WillRetry {
				t.Fatalf("compaction_end: %s", line)
			}
			kinds = append(kinds, e.Type+":"+e.Reason)
		case "agent_end":
			kinds = append(kinds, e.Type+":"+map[bool]string{true: "retry", false: "done"}[e.WillRetry])
		}
	}
	if got := strings.Join(kinds, " "); got != "agent_end:retry compaction_start:overflow compaction_end:overflow agent_end:done" {
		t.Fatalf("events: %s", got)
	}
	if !strings.Contains(stdout, "Recovered.") {
		t.Fatal("no answer after the retry")
	}
	show, _, code := c.run("session", "show", file)
	if code != 0 {
		t.Fatal("session show failed")
	}
	for _, want := range []string{`"one"`, `"two"`, `"three"`, "First answer.", "Recovered.", "context edit  omits", "compaction  keeps from"} {
		if !strings.Contains(show, want) {
			t.Errorf("session show lacks %s:\n%s", want, show)
		}
	}
	// The retried request, rebuilt from the file, is the one sent: the
	// summary in place of the older messages.
	retried, _, code := c.run("session", "show", "--request", "3", file)
	if code != 0 || !strings.Contains(retried, "compacted into the following summary") || strings.Contains(retried, "First answer.") {
		t.Errorf("session show --request 3:\n%s", retried)
	}
}

// TestRPCCompact: set_auto_compaction turns automatic compaction off (and
// get_state says so); compact with customInstructions summarises with that
// focus, answers with the result and reports compaction_start/_end
// (reason manual); get_messages then starts with the summary.
func TestRPCCompact(t *testing.T) {
	c := newCLI(t)
	s := scriptedModel(t, c, "openai-completions", []scripted.Reply{{Text: "One."}, {Text: "Two."}, {Text: "## Goal\nFOCUSED"}})
	writeFiles(t, c.agentDir, map[string]string{"settings.json": `{"compaction":{"keepRecentTokens":4}}`})
	rc := startRPC(t, c)
	rc.send(`{"id":"a","type":"set_auto_compaction","enabled":false}`)
	if r := rc.response("a"); r["success"] != true {
		t.Fatalf("set_auto_compaction: %v", r)
	}
	rc.send(`{"id":"st","type":"get_state"}`)
	if st := rc.response("st")["data"].(map[string]any); st["autoCompactionEnabled"] != false || st["isCompacting"] != false {
		t.Fatalf("state: %v", st)
	}
	for _, id := range []string{"p1", "p2"} {
		rc.send(`{"id":"` + id + `","type":"prompt","message":"message ` + id + `"}`)
		rc.response(id)
		rc.event("agent_settled")
	}
	rc.send(`{"id":"c","type":"compact","customInstructions":"focus on the tests"}`)
	start := rc.event("compaction_start")
	r := rc.response("c")
	if start["reason"] != "manual" || r["success"] != true {
		t.Fatalf("compact: %v %v", start, r)
	}
	data := r["data"].(map[string]any)
	if data["summary"] != "## Goal\nFOCUSED" || data["firstKeptEntryId"] == "" {
		t.Fatalf("compact result: %v", data)
	}
	reqs := s.Requests()
	if last := string(reqs[len(reqs)-1]); !strings.Contains(last, `Additional focus: focus on the tests`) {
		t.Fatalf("the focus did not reach the summary request: %s", last)
	}
	rc.send(`{"id":"m","type":"get_messages"}`)
	msgs := rc.response("m")["data"].(map[string]any)["messages"].([]any)
	// As the established harness's agent holds them: the prompt the
	// compaction recorded, then its summary.
	for len(msgs) > 1 && msgs[0].(map[string]any)["role"] == "system" {
		msgs = msgs[1:]
	}
	if first := msgs[0].(map[string]any); first["role"] != "compactionSummary" || first["summary"] != "## Goal\nFOCUSED" {
		t.Fatalf("messages after compaction: %v", msgs)
	}
	rc.in.Close()
}

// TestExtensionWritesTheSummary: with the compact-notes example loaded, an
// automatic compaction takes the extension's summary (no summary request
// reaches the model), stores it marked fromHook, and the next request
// carries it.
func TestExtensionWritesTheSummary(t *testing.T) {
	c := newCLI(t)
	s := scriptedModel(t, c, "openai-completions", []scripted.Reply{
		{Text: "One.", PromptTokens: 5000}, {Text: "Two.", PromptTokens: 5000}, {Text: "Three."},
	})
	models := strings.Replace(readFile(t, filepath.Join(c.agentDir, "models.json")), `{"id":"mock-1"}`, `{"id":"mock-1","contextWindow":1000}`, 1)
	writeFiles(t, c.agentDir, map[string]string{"models.json": models, "settings.json": `{"compaction":{"reserveTokens":100,"keepRecentTokens":4}}`})
	file := filepath.Join(c.home, "s.jsonl")
	ext := examplePlugin(t, "compact-notes")
	for _, p := range []string{"first request", "second request", "third request"} {
		if out, stderr, code := c.run("-p", "--no-extensions", "-e", ext, "--session", file, p); code != 0 {
			t.Fatalf("%s: exit %d: %s %s", p, code, out, stderr)
		}
	}
	reqs := s.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests: the model was asked for a summary", len(reqs))
	}
	if last := string(reqs[2]); !strings.Contains(last, `## Requests so far\n- first request`) {
		t.Fatalf("the extension's summary is not in the next request: %s", last)
	}
	raw := readFile(t, file)
	if !strings.Contains(raw, `"type":"compaction"`) || !strings.Contains(raw, `"fromHook":true`) {
		t.Fatalf("no compaction entry from the hook:\n%s", raw)
	}
}
