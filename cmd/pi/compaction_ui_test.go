//go:build unix

package main

import (
	"strings"
	"testing"
	"time"

	"github.com/piwasm/pi/internal/scripted"
)

// TestInteractiveCompact: /compact focus on the tests in the terminal UI
// compacts (it is not sent to the model as a message), the focus reaches
// the summary request, and the UI shows the compaction with its summary
// one ctrl+o away.
func TestInteractiveCompact(t *testing.T) {
	c := newCLI(t)
	proj := t.TempDir()
	srv := scriptedModel(t, c, "openai-completions", []scripted.Reply{
		{Text: "First answer."},
		{Text: "Second answer."},
		{Text: "## Goal\nKEEP THE TESTS GREEN"},
	})
	writeFiles(t, c.agentDir, map[string]string{"settings.json": `{"compaction":{"keepRecentTokens":6}}`})
	tm := startTerminal(t, c, proj, "--fullscreen", "--cwd", proj)
	tm.waitFor("Ask pi")
	tm.typeLine("first question")
	tm.waitFor("First answer.")
	tm.typeLine("second question")
	tm.waitFor("Second answer.")
	tm.typeLine("/compact focus on the tests")
	tm.waitFor("compacted (manual)")
	reqs := srv.Requests()
	if len(reqs) != 3 || !strings.Contains(string(reqs[2]), "Additional focus: focus on the tests") {
		t.Fatalf("no summary request with the focus (%d requests): %s", len(reqs), reqs[len(reqs)-1])
	}
	tm.press("\x0f") // ctrl+o
	tm.waitFor("KEEP THE TESTS GREEN")
	tm.typeLine("/quit")
	if !tm.exited(30 * time.Second) {
		t.Fatalf("/quit did not quit:\n%s", tm.screen())
	}
}
