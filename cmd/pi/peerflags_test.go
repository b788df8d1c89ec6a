package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/piwasm/pi/internal/scripted"
)

// The established harness's --export, --offline and --tui-mode: a session
// file becomes a self-contained HTML page without a model being asked;
// --offline is accepted; --tui-mode takes its two values and nothing else.
func TestPeerMainFlags(t *testing.T) {
	c := newCLI(t)
	proj := t.TempDir()
	s := scriptedModel(t, c, "openai-completions", []scripted.Reply{{Text: "The answer is <42>."}})
	if _, errs, code := c.run("-p", "--offline", "--cwd", proj, "what is the answer?"); code != 0 {
		t.Fatalf("-p --offline: exit %d: %s", code, errs)
	}
	files, _ := filepath.Glob(filepath.Join(c.agentDir, "sessions", "*", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("sessions %v", files)
	}
	out := filepath.Join(t.TempDir(), "page.html")
	stdout, errs, code := c.run("--export", files[0], out)
	if code != 0 || !strings.Contains(stdout, "exported 2 messages to "+out) {
		t.Fatalf("--export: exit %d: %s%s", code, stdout, errs)
	}
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(strings.ToLower(string(page)), "<!doctype html") || !strings.Contains(string(page), "what is the answer?") || !strings.Contains(string(page), "The answer is &lt;42&gt;.") {
		t.Errorf("page:\n%s", page)
	}
	// Without OUT: the session's name with .html.
	if _, errs, code := c.run("--export", files[0]); code != 0 {
		t.Fatalf("--export FILE: exit %d: %s", code, errs)
	}
	if _, err := os.Stat(strings.TrimSuffix(files[0], ".jsonl") + ".html"); err != nil {
		t.Error(err)
	}
	if s.Served() != 1 {
		t.Errorf("the model was asked %d times, want 1 (the export asks nothing)", s.Served())
	}
	if _, errs, code := c.run("--export", filepath.Join(proj, "missing.jsonl")); code == 0 || !strings.Contains(errs, "missing.jsonl") {
		t.Errorf("missing file: exit %d: %s", code, errs)
	}
	for _, args := range [][]string{{"--tui-mode", "sideways"}, {"--tui-mode", "regular", "--fullscreen"}} {
		if _, errs, code := c.run(append(args, "-p", "hi")...); code != exitUsage || !strings.Contains(errs, "--tui-mode") {
			t.Errorf("%v: exit %d: %s", args, code, errs)
		}
	}
}

// PI_CACHE_RETENTION=long asks for the hour-long prompt cache on
// Anthropic, as the established harness does; without it the default.
func TestCacheRetentionFromEnvironment(t *testing.T) {
	c := newCLI(t)
	proj := t.TempDir()
	scriptedModel(t, c, "anthropic-messages", nil)
	body, errs, code := c.run("-p", "--dry-run", "--no-session", "--cwd", proj, "hi")
	if code != 0 || !strings.Contains(body, `"cache_control":{"type":"ephemeral"}`) || strings.Contains(body, `"ttl"`) {
		t.Fatalf("default: exit %d: %s%s", code, body, errs)
	}
	c.env = map[string]string{"PI_CACHE_RETENTION": "long"}
	body, errs, code = c.run("-p", "--dry-run", "--no-session", "--cwd", proj, "hi")
	if code != 0 || !strings.Contains(body, `"cache_control":{"type":"ephemeral","ttl":"1h"}`) {
		t.Fatalf("PI_CACHE_RETENTION=long: exit %d: %s%s", code, body, errs)
	}
}
