package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/piwasm/pi/core/session/sessioncmd"

	"github.com/piwasm/pi/core/prompt"
	"github.com/piwasm/pi/core/session"
	"github.com/piwasm/pi/internal/scripted"
)

func sessionFiles(t *testing.T, c *cli) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(c.agentDir, "sessions", "*", "*.jsonl"))
	return files
}

func loadOnly(t *testing.T, path string) *session.Transcript {
	t.Helper()
	tr, err := session.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func userTexts(tr *session.Transcript) string {
	var out []string
	for _, e := range tr.Branch() {
		if e.Type == session.TypeMessage && e.Message.Role == "user" {
			out = append(out, e.Message.Content.Text())
		}
	}
	return strings.Join(out, ",")
}

// TestSessionFlags: --session with an id prefix, --fork, --session-id and
// --name, as the established harness takes them, and the combinations it
// refuses.
func TestSessionFlags(t *testing.T) {
	c := newCLI(t)
	scriptedModel(t, c, "openai-completions", []scripted.Reply{{Text: "a"}, {Text: "b"}, {Text: "c"}, {Text: "d"}, {Text: "e"}})
	run := func(args ...string) string {
		t.Helper()
		out, errs, code := c.run(append([]string{"-p"}, args...)...)
		if code != 0 {
			t.Fatalf("pi %v: exit %d: %s", args, code, errs)
		}
		return out
	}
	run("hello")
	files := sessionFiles(t, c)
	if len(files) != 1 {
		t.Fatalf("files %v", files)
	}
	orig := loadOnly(t, files[0])
	id := orig.Header.ID

	run("--session", id[:6], "again")
	if got := userTexts(loadOnly(t, files[0])); got != "hello,again" || len(sessionFiles(t, c)) != 1 {
		t.Errorf("--session with an id prefix: %s", got)
	}

	run("--fork", id[:4], "forked")
	var fork string
	for _, f := range sessionFiles(t, c) {
		if f != files[0] {
			fork = f
		}
	}
	ft := loadOnly(t, fork)
	if ft.Header.ParentSession != files[0] || ft.Header.ID == id || userTexts(ft) != "hello,again,forked" {
		t.Errorf("--fork: %+v %s", ft.Header, userTexts(ft))
	}
	if got := userTexts(loadOnly(t, files[0])); got != "hello,again" {
		t.Errorf("the forked session changed: %s", got)
	}

	run("--session-id", "my-id", "--name", " my\nwork ", "named")
	found, ok := session.FindExact(session.Dir(c.agentDir, c.home), c.home, "my-id")
	if !ok {
		t.Fatal("no session with the chosen id")
	}
	if tr := loadOnly(t, found.Path); tr.Name() != "my work" {
		t.Errorf("--name stored %q", tr.Name())
	}
	run("--session-id", "my-id", "more")
	if got := userTexts(loadOnly(t, found.Path)); got != "named,more" {
		t.Errorf("--session-id of an existing session: %s", got)
	}

	// A session of another directory is not continued here.
	other := t.TempDir()
	_, errs, code := c.run("-p", "--cwd", other, "--session", id[:6], "x")
	if code == 0 || !strings.Contains(errs, "--fork") {
		t.Errorf("--session of another directory: exit %d: %s", code, errs)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--fork", id, "--session", "x.jsonl"}, "--fork cannot be combined with --session"},
		{[]string{"--fork", id, "--no-session", "-c"}, "--fork cannot be combined with --continue, --no-session"},
		{[]string{"--session-id", "a", "-c"}, "--session-id cannot be combined with --continue"},
		{[]string{"--session-id", "bad id"}, "session id must"},
		{[]string{"--name", " "}, "--name requires a non-empty value"},
		{[]string{"--session", "zzzz", "x"}, "No session found matching 'zzzz'"},
		{[]string{"--fork", "zzzz", "x"}, "No session found matching 'zzzz'"},
		{[]string{"--fork", id[:6], "--session-id", "my-id", "x"}, "Session already exists with id 'my-id'"},
	} {
		_, errs, code := c.run(append([]string{"-p"}, tc.args...)...)
		if code == 0 || !strings.Contains(errs, tc.want) {
			t.Errorf("pi %v: exit %d, stderr %q; want %q", tc.args, code, errs, tc.want)
		}
	}
}

// TestSessionListNamesAndBranches: pi session list shows a session's name
// and how many branches its tree has.
func TestSessionListNamesAndBranches(t *testing.T) {
	c := newCLI(t)
	proj := t.TempDir()
	dir := session.Dir(c.agentDir, proj)
	tr, err := session.Create(filepath.Join(dir, "2026-01-01T00-00-00.000Z_s1.jsonl"), session.Header{ID: "s1", Cwd: proj, Timestamp: "2026-01-01T00:00:00.000Z"})
	if err != nil {
		t.Fatal(err)
	}
	user := func(text string) session.Entry {
		return session.Entry{Type: session.TypeMessage, Message: &prompt.Message{Role: "user", Content: prompt.TextContent(text)}}
	}
	tr.Append(user("start here"))
	root := tr.LeafID()
	tr.Append(user("one way"))
	tr.SetLeaf(root)
	tr.Append(user("another way"))
	tr.SetName("the experiment")
	tr.Close()

	var list []sessioncmd.Summary
	out, errs, code := c.run("session", "list", "--cwd", proj, "--json")
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil || len(list) != 1 {
		t.Fatalf("list: %d %q %q", code, out, errs)
	}
	if list[0].Name != "the experiment" || list[0].Branches != 2 {
		t.Errorf("summary %+v", list[0])
	}
	out, _, _ = c.run("session", "list", "--cwd", proj)
	if !strings.Contains(out, "2 branches") || !strings.Contains(out, "[the experiment]") {
		t.Errorf("list text %q", out)
	}
}
