//go:build unix

package main

import (
	"testing"

	"github.com/piwasm/pi/internal/scripted"
)

// TestSessionHooksInTheTerminal: as a user would see it, /new and /clone
// refused by session-log leave the conversation on screen with a notice
// naming the extension, and /fork (allowed) goes on.
func TestSessionHooksInTheTerminal(t *testing.T) {
	c := newCLI(t)
	proj := t.TempDir()
	scriptedModel(t, c, "openai-completions", []scripted.Reply{{Text: "First answer."}})
	writeFiles(t, c.agentDir, map[string]string{"settings.json": `{"extensionConfig":{"session-log":{"refuse":["new","clone"]}}}`})
	ext := examplePlugin(t, "session-log")
	tm := startTerminalEnv(t, c, proj, nil, "--cwd", proj, "--no-extensions", "-e", ext)
	tm.waitFor("Ask pi")
	tm.typeLine("hello")
	tm.waitFor("First answer.")
	tm.typeLine("/new")
	tm.waitFor("session-log cancelled this in session_before_switch")
	tm.typeLine("/clone")
	tm.waitFor("session-log cancelled this in session_before_fork")
	tm.typeLine("/fork")
	tm.waitFor("Fork from which message?")
	tm.press("\r")
	tm.waitFor("Forked to new session")
}
