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
}
