//go:build unix && !noui

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/piwasm/pi/core/session"
	"github.com/piwasm/pi/internal/scripted"
)

// writePeerSession writes a session file as the established harness lays
// it out (header, then a chain of messages a minute apart from start) in
// cwd's sessions folder, and returns its path.
func writePeerSession(t *testing.T, agentDir, cwd, id string, start time.Time, texts ...string) string {
	t.Helper()
	return writePeerSessionIn(t, session.Dir(agentDir, cwd), cwd, id, start, texts...)
}

// writePeerSessionIn is writePeerSession into dir (a sessions directory
// of its own).
func writePeerSessionIn(t *testing.T, dir, cwd, id string, start time.Time, texts ...string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	stamp := start.UTC().Format("2006-01-02T15:04:05.000Z")
	var b strings.Builder
	line := func(v any) {
		data, _ := json.Marshal(v)
		b.Write(data)
		b.WriteByte('\n')
	}
	line(map[string]any{"type": "session", "version": 3, "id": id, "timestamp": stamp, "cwd": cwd})
	var parent any
	for i, text := range texts {
		at := start.Add(time.Duration(i+1) * time.Minute)
		role := "user"
		msg := map[string]any{"role": role, "content": []any{map[string]any{"type": "text", "text": text}}, "timestamp": at.UnixMilli()}
		if i%2 == 1 {
			msg["role"] = "assistant"
			msg["api"], msg["provider"], msg["model"], msg["stopReason"] = "openai-completions", "mock", "mock-1", "stop"
			msg["usage"] = map[string]any{"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
				"cost": map[string]any{"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}
		}
		eid := fmt.Sprintf("%s%04d", id[:4], i)
		line(map[string]any{"type": "message", "id": eid, "parentId": parent, "timestamp": at.UTC().Format(time.RFC3339Nano), "message": msg})
		parent = eid
	}
	p := filepath.Join(dir, strings.ReplaceAll(stamp, ":", "-")+"_"+id+".jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// waitGone waits until the screen no longer shows text.
func (tm *terminal) waitGone(text string) string {
	tm.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		s := tm.screen()
		if !strings.Contains(s, text) {
			return s
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("the screen still shows %q:\n%s", text, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// lastEntry is the last line of a session file, decoded.
func lastEntry(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	var e map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &e); err != nil {
		t.Fatal(err)
	}
	return e
}

// TestUIResumePicker drives /resume as a user would: the search narrows
// the list, ctrl+r renames a session (a session_info entry, as the
// established harness writes it), ctrl+d asks and deletes, tab shows
// another directory's session, and resuming it continues that file.
func TestUIResumePicker(t *testing.T) {
	c := newCLI(t)
	proj, other := t.TempDir(), t.TempDir()
	now := time.Now()
	parser := writePeerSession(t, c.agentDir, proj, "aaaa0001", now.Add(-72*time.Hour), "fix the parser bug", "fixed")
	zebra := writePeerSession(t, c.agentDir, proj, "bbbb0002", now.Add(-2*time.Hour), "explain zebra stripes", "they confuse predators")
	elsewhere := writePeerSession(t, c.agentDir, other, "cccc0003", now.Add(-240*time.Hour), "other project question", "an answer")
	srv := scriptedModel(t, c, "openai-completions", []scripted.Reply{{Text: "Continued over there."}})
	tm := startTerminal(t, c, proj, "--fullscreen", "--cwd", proj)
	tm.waitFor("Ask pi")

	tm.typeLine("/resume")
	s := tm.waitFor("Resume Session (Current Folder)")
	if !strings.Contains(s, "fix the parser bug") || strings.Contains(s, "other project question") {
		t.Fatalf("this directory's sessions are not what the picker lists:\n%s", s)
	}
	// Search as you type: only the zebra session is left.
	tm.press("zeb")
	tm.waitFor("> zeb")
	tm.waitGone("fix the parser bug")
	tm.press("\x7f\x7f\x7f")
	tm.waitFor("fix the parser bug")
	// A word from a reply (read from the files once a search needs it).
	tm.press("predators")
	tm.waitGone("fix the parser bug")
	tm.waitFor("explain zebra stripes")
	tm.press("\x15") // ctrl+u clears the search
	tm.waitFor("fix the parser bug")

	// Rename the selected (latest) session.
	tm.press("\x12") // ctrl+r
	tm.waitFor("Rename Session")
	tm.press("zebra notes")
	time.Sleep(100 * time.Millisecond)
	tm.press("\r")
	tm.waitGone("Rename Session")
	tm.waitFor("zebra notes")
	e := lastEntry(t, zebra)
	if e["type"] != "session_info" || e["name"] != "zebra notes" || e["parentId"] != "bbbb0001" {
		t.Fatalf("the rename wrote %v, want a session_info entry after the last message", e)
	}
	if tr, err := session.Load(zebra); err != nil || tr.Name() != "zebra notes" {
		t.Fatalf("the renamed session reads back as %v, %v", tr, err)
	}

	// Delete the older session: asked first, then gone.
	tm.press("\x1b[B") // down
	time.Sleep(100 * time.Millisecond)
	tm.press("\x04") // ctrl+d
	tm.waitFor("Delete session?")
	if _, err := os.Stat(parser); err != nil {
		t.Fatalf("deleted before the answer: %v", err)
	}
	tm.press("\r")
	tm.waitGone("fix the parser bug")
	if _, err := os.Stat(parser); !os.IsNotExist(err) {
		t.Fatalf("the session file is still there: %v", err)
	}

	// Tab: every directory's sessions; resume the other directory's.
	tm.press("\t")
	tm.waitFor("Resume Session (All)")
	tm.waitFor("other project question")
	tm.press("other")
	tm.waitGone("zebra notes")
	tm.press("\r")
	tm.waitFor("Resumed session")
	tm.waitFor("This session was made in " + other)
	tm.typeLine("carry on")
	tm.waitFor("Continued over there.")
	reqs := srv.Requests()
	if len(reqs) != 1 || !strings.Contains(string(reqs[0]), "other project question") {
		t.Fatalf("the request after resuming does not carry the session's history")
	}
	data, _ := os.ReadFile(elsewhere)
	if !strings.Contains(string(data), "carry on") || !strings.Contains(string(data), "Continued over there.") {
		t.Fatalf("the resumed session's file did not grow:\n%s", data)
	}
}

// TestUIResumeAtStart: pi -r shows the picker before the session; esc
// leaves with "No session selected", enter opens the chosen session.
func TestUIResumeAtStart(t *testing.T) {
	c := newCLI(t)
	proj := t.TempDir()
	now := time.Now()
	writePeerSession(t, c.agentDir, proj, "aaaa0001", now.Add(-3*time.Hour), "first topic", "first answer")
	older := writePeerSession(t, c.agentDir, proj, "bbbb0002", now.Add(-30*time.Hour), "second topic", "second answer")
	other := t.TempDir()
	writePeerSession(t, c.agentDir, other, "cccc0003", now.Add(-50*time.Hour), "a question elsewhere", "an answer elsewhere")
	srv := scriptedModel(t, c, "openai-completions", []scripted.Reply{{Text: "Back on the second topic."}, {Text: "Working over there."}})

	tm := startTerminal(t, c, proj, "-r", "--cwd", proj)
	tm.waitFor("Resume Session (Current Folder)")
	tm.waitFor("second topic")
	time.Sleep(100 * time.Millisecond)
	tm.press("\x1b")
	tm.waitFor("No session selected")
	if !tm.exited(30 * time.Second) {
		t.Fatalf("esc did not leave pi -r:\n%s", tm.screen())
	}
	if files, _ := filepath.Glob(filepath.Join(session.Dir(c.agentDir, proj), "*.jsonl")); len(files) != 2 {
		t.Fatalf("leaving the picker left %d session files, want the 2 there were", len(files))
	}

	tm = startTerminal(t, c, proj, "-r", "--cwd", proj)
	tm.waitFor("second topic")
	tm.press("\x1b[B")
	time.Sleep(100 * time.Millisecond)
	tm.press("\r")
	tm.waitFor("second answer")
	tm.typeLine("and then?")
	tm.waitFor("Back on the second topic.")
	if reqs := srv.Requests(); len(reqs) != 1 || !strings.Contains(string(reqs[0]), "second topic") {
		t.Fatalf("the request does not continue the chosen session")
	}
	if data, _ := os.ReadFile(older); !strings.Contains(string(data), "and then?") {
		t.Fatalf("the chosen session's file did not grow:\n%s", data)
	}

	// Another directory's session (tab) runs in its own directory.
	tm = startTerminal(t, c, proj, "-r", "--cwd", proj)
	tm.waitFor("second topic")
	tm.press("\t")
	tm.waitFor("a question elsewhere")
	tm.press("elsewhere")
	tm.waitGone("second topic")
	tm.press("\r")
	tm.waitFor("an answer elsewhere")
	tm.typeLine("what now?")
	tm.waitFor("Working over there.")
	reqs := srv.Requests()
	if last := string(reqs[len(reqs)-1]); !strings.Contains(last, "a question elsewhere") || !strings.Contains(last, other) || strings.Contains(last, proj) {
		t.Fatalf("the other directory's session did not run there: %s", last)
	}
}

// TestUIResumeSessionDir: with a sessions directory of its own
// (PI_CODING_AGENT_SESSION_DIR, as --session-dir and sessionDir), the
// picker lists this directory's sessions from it, and with tab all of it.
func TestUIResumeSessionDir(t *testing.T) {
	c := newCLI(t)
	proj, other, store := t.TempDir(), t.TempDir(), t.TempDir()
	now := time.Now()
	writePeerSessionIn(t, store, proj, "aaaa0001", now.Add(-time.Hour), "kept in the store", "yes")
	writePeerSessionIn(t, store, other, "bbbb0002", now.Add(-2*time.Hour), "another folder's, same store", "yes")
	writePeerSession(t, c.agentDir, proj, "cccc0003", now.Add(-3*time.Hour), "in the default place", "yes")
	tm := startTerminalEnv(t, c, proj, []string{"PI_CODING_AGENT_SESSION_DIR=" + store}, "-r", "--cwd", proj)
	s := tm.waitFor("kept in the store")
	if strings.Contains(s, "another folder's") || strings.Contains(s, "in the default place") {
		t.Fatalf("this directory's list holds other sessions:\n%s", s)
	}
	tm.press("\t")
	s = tm.waitFor("another folder's, same store")
	if strings.Contains(s, "in the default place") {
		t.Fatalf("every directory's list reaches outside the sessions directory:\n%s", s)
	}
	time.Sleep(100 * time.Millisecond)
	tm.press("\x1b")
	tm.waitFor("No session selected")
}

func TestPickerDeletesOnlySessionFiles(t *testing.T) {
	agent := t.TempDir()
	dir := filepath.Join(agent, "sessions", "--work--")
	for _, c := range []struct {
		dir, path string
		ok        bool
	}{
		{dir, filepath.Join(dir, "a.jsonl"), true},
		{dir, filepath.Join(agent, "sessions", "--other--", "b.jsonl"), true},
		{"/store", "/store/c.jsonl", true},
		{dir, filepath.Join(dir, "notes.txt"), false},
		{dir, filepath.Join(agent, "settings.jsonl"), false},
		{dir, "/etc/d.jsonl", false},
		{"/store", filepath.Join(agent, "sessions", "x.jsonl"), false},
	} {
		if err := insideSessions(agent, c.dir, c.path); (err == nil) != c.ok {
			t.Errorf("insideSessions(%s, %s) = %v, want ok %v", c.dir, c.path, err, c.ok)
		}
	}
}

// TestUIResumeAtStartKeybindings: pi -r's picker follows keybindings.json
// as the session's does (a moved action answers to its new key only).
func TestUIResumeAtStartKeybindings(t *testing.T) {
	c := newCLI(t)
	proj := t.TempDir()
	writePeerSession(t, c.agentDir, proj, "aaaa0001", time.Now().Add(-time.Hour), "only topic", "yes")
	writeFiles(t, c.agentDir, map[string]string{"keybindings.json": `{"app.session.toggleSort": "ctrl+o"}`})
	tm := startTerminal(t, c, proj, "-r", "--cwd", proj)
	tm.waitFor("Sort: Threaded")
	tm.press("\x13") // ctrl+s: no longer the sort key
	time.Sleep(300 * time.Millisecond)
	if s := tm.screen(); !strings.Contains(s, "Sort: Threaded") {
		t.Fatalf("ctrl+s still changed the order:\n%s", s)
	}
	tm.press("\x0f") // ctrl+o
	tm.waitFor("Sort: Recent")
	time.Sleep(100 * time.Millisecond)
	tm.press("\x1b")
	tm.waitFor("No session selected")
}
