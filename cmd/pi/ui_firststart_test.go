//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoModelOpensTheSession: with an empty agent dir the session opens
// (it exited with a models.json message) and says how to go on; /login
// stores a key and /model picks a model of that provider.
func TestNoModelOpensTheSession(t *testing.T) {
	c := newCLI(t)
	proj := t.TempDir()
	tm := startTerminal(t, c, proj, "--cwd", proj)
	tm.waitFor("No model yet")
	tm.waitFor(filepath.Join(c.agentDir, "models.json"))
	tm.typeLine("hello")
	tm.waitFor("no model to send to")
	tm.typeLine("/login openai")
	tm.waitFor("API key")
	tm.typeLine("sk-test-key")
	tm.waitFor("stored an API key for openai")
	tm.typeLine("/model openai/gpt-4o-mini")
	tm.waitFor("model: openai/gpt-4o-mini")
	if s := tm.screen(); !strings.Contains(s, "openai/gpt-4o-mini") {
		t.Errorf("the footer does not name the model:\n%s", s)
	}
}

// TestTmuxExtendedKeysWarning: inside tmux with extended-keys off the
// session says so once, with the line that fixes it.
func TestTmuxExtendedKeysWarning(t *testing.T) {
	c := newCLI(t)
	proj := t.TempDir()
	bin := t.TempDir()
	// A tmux that answers "off" for extended-keys and nothing else.
	script := "#!/bin/sh\nif [ \"$1 $2 $3\" = \"show -gv extended-keys\" ]; then echo off; exit 0; fi\nexit 1\n"
	if err := os.WriteFile(filepath.Join(bin, "tmux"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	scriptedModel(t, c, "openai-completions", nil)
	tm := startTerminalEnv(t, c, proj, []string{"TMUX=/tmp/tmux-test/default,1,0", "PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH")}, "--cwd", proj)
	s := tm.waitFor("set -g extended-keys on")
	if n := strings.Count(s, "extended-keys off"); n != 1 {
		t.Errorf("the warning shows %d times, want once:\n%s", n, s)
	}
}
