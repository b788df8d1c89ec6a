//go:build unix

package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/piwasm/pi/core/session"
	"github.com/piwasm/pi/internal/scripted"
)

// TestInteractiveSessionTree is the session tree as a person uses it in
// the terminal: /name, /tree back to an earlier message with a summary of
// the branch left, the message edited and sent again, /fork from it and
// /clone.
func TestInteractiveSessionTree(t *testing.T) {
	c := newCLI(t)
	proj := t.TempDir()
	srv := scriptedModel(t, c, "openai-completions", []scripted.Reply{
		{Text: "One."},
		{Text: "Two."},
		{Text: "## Goal\nBranch notes."},
		{Text: "Three."},
	})
	tm := startTerminal(t, c, proj, "--cwd", proj)
	// Keys typed before the UI takes the terminal over are lost, as they
	// would be for a person: wait for its footer.
	tm.waitFor("mock/mock-1")
	tm.typeLine("first")
	tm.waitFor("One.")
	tm.typeLine("second")
	tm.waitFor("Two.")

	tm.typeLine("/name tree work")
	tm.waitFor("Session name set: tree work")

	tm.typeLine("/tree")
	tm.waitFor("Session tree")
	tm.press("second")
	tm.waitFor("search: second")
	tm.press("\r")
	tm.waitFor("Summarize branch?")
	tm.press("\x1b[B") // down: "Summarize"
	time.Sleep(100 * time.Millisecond)
	tm.press("\r")
	tm.waitFor("Navigated to selected point")
	if reqs := srv.Requests(); len(reqs) != 3 || !strings.Contains(string(reqs[2]), "Two.") {
		t.Fatalf("no summary request with the branch left (%d requests)", len(reqs))
	}
	// The message is back in the editor: change it and send it.
	tm.typeLine(" again")
	tm.waitFor("Three.")
	last := string(srv.Requests()[3])
	if !strings.Contains(last, "second again") || !strings.Contains(last, "Branch notes.") || strings.Contains(last, "Two.") {
		t.Errorf("the request after the move: %s", last)
	}

	tm.typeLine("/fork")
	tm.waitFor("Fork from which message?")
	tm.press("\r")
	tm.waitFor("Forked to new session")
	tm.press("\x03") // clear the editor (it holds the message forked from)
	time.Sleep(100 * time.Millisecond)
	tm.typeLine("/clone")
	tm.waitFor("Cloned to new session")

	files, _ := filepath.Glob(filepath.Join(session.Dir(c.agentDir, proj), "*.jsonl"))
	if len(files) != 3 {
		t.Fatalf("want the session, its fork and the clone: %v", files)
	}
	byParent := map[string]string{}
	var original string
	for _, f := range files {
		tr, err := session.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		if tr.Header.ParentSession == "" {
			original = f
			if tr.Name() != "tree work" || tr.Branches() != 2 {
				t.Errorf("original: name %q, %d branches", tr.Name(), tr.Branches())
			}
		}
		byParent[tr.Header.ParentSession] = f
	}
	fork := byParent[original]
	if fork == "" || byParent[fork] == "" {
		t.Errorf("the fork does not name the session, or the clone the fork: %v", byParent)
	}
	tm.press("\x03")
	tm.press("\x03")
	if !tm.exited(30 * time.Second) {
		t.Fatalf("ctrl+c twice did not quit:\n%s", tm.screen())
	}
}
