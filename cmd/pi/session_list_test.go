package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/piwasm/pi/core/session/sessioncmd"
)

// Two runs in one directory and one elsewhere: list shows this directory's
// sessions newest first with their first user message; --all shows all;
// show says how many requests there are; --help exits 0.
func TestSessionListAndShow(t *testing.T) {
	c := newCLI(t)
	srv, _ := mockOpenAI(t)
	writeFiles(t, c.agentDir, map[string]string{"models.json": `{"providers":{"mock":{"baseUrl":"` + srv.URL + `/v1","api":"openai-completions","apiKey":"k","models":[{"id":"mock-1"}]}}}`})
	proj, other := t.TempDir(), t.TempDir()
	for _, r := range [][]string{{"-p", "first task", "--cwd", proj}, {"-p", "second task", "--cwd", proj}, {"-p", "elsewhere", "--cwd", other}} {
		if _, errs, code := c.run(r...); code != 0 {
			t.Fatalf("%v: exit %d: %s", r, code, errs)
		}
	}
	var list []sessioncmd.Summary
	out, errs, code := c.run("session", "list", "--cwd", proj, "--json")
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil {
		t.Fatalf("list: %d %q %q", code, out, errs)
	}
	if len(list) != 2 || list[0].FirstUser != "second task" || list[1].FirstUser != "first task" || list[0].Messages != 2 || list[0].ID == "" {
		t.Fatalf("list %+v", list)
	}
	out, _, code = c.run("session", "list", "--cwd", proj)
	if code != 0 || !strings.Contains(out, list[0].ID) || !strings.Contains(out, `"second task"`) || strings.Index(out, "second") > strings.Index(out, "first") {
		t.Fatalf("list text %q", out)
	}
	out, _, code = c.run("session", "list", "--all", "--json")
	if json.Unmarshal([]byte(out), &list) != nil || code != 0 || len(list) != 3 {
		t.Fatalf("list --all: %d %q", code, out)
	}
	sessions, _ := filepath.Glob(filepath.Join(c.agentDir, "sessions", "*", "*.jsonl"))
	out, _, code = c.run("session", "show", sessions[0])
	if code != 0 || !strings.Contains(out, "1 request (--request N shows one, 0 to 0)") {
		t.Fatalf("show: %d %q", code, out)
	}
	// An id prefix names a session as --session's does (issue 35, item 12).
	prefix := list[2].ID[:len(list[2].ID)-4]
	out, errs, code = c.run("session", "show", prefix)
	if code != 0 || !strings.Contains(out, "session "+list[2].ID) {
		t.Fatalf("show %s (an id prefix): %d %q %q", prefix, code, out, errs)
	}
	if _, errs, code = c.run("session", "show", "no-such-session"); code == 0 || !strings.Contains(errs, "no-such-session") {
		t.Fatalf("show of an unknown id: exit %d %q", code, errs)
	}
	for _, help := range [][]string{{"session", "--help"}, {"session", "show", "--help"}, {"session", "list", "--help"}} {
		if out, errs, code := c.run(help...); code != 0 || out == "" {
			t.Errorf("%v: exit %d %q %q", help, code, out, errs)
		}
	}
}
