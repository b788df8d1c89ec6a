//go:build unix && !noui

package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/piwasm/pi/core/settings"
	"github.com/piwasm/pi/internal/scripted"
)

// TestCommandsInTheTerminal drives the real binary in a pseudo-terminal
// through the model and thinking controls and the commands that reach
// outside the conversation; none of them may reach the model.
func TestCommandsInTheTerminal(t *testing.T) {
	c := newCLI(t)
	proj := t.TempDir()
	s := &scripted.Server{Replies: []scripted.Reply{{Text: "First answer, worth copying."}}}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	writeFiles(t, c.agentDir, map[string]string{"models.json": `{"providers":{"mock":{"baseUrl":"` + srv.URL + `/v1","api":"openai-completions","apiKey":"k",` +
		`"models":[{"id":"mock-1","reasoning":true},{"id":"mock-2"}]}}}`})
	// A stand-in for GitHub's gh: signed in, and gist create keeps the
	// page where the test can read it.
	bin := t.TempDir()
	shared := filepath.Join(t.TempDir(), "shared.html")
	writeFiles(t, bin, map[string]string{"gh": "#!/bin/sh\ncase \"$1 $2\" in\n\"auth status\") exit 0;;\n\"gist create\") cp \"$5\" " + shared + "; echo https://gist.github.com/pi-test/abc123;;\n*) exit 3;;\nesac\n"})
	os.Chmod(filepath.Join(bin, "gh"), 0o755)

	tm := startTerminalEnv(t, c, proj, []string{"PATH=" + bin + ":" + os.Getenv("PATH")}, "--cwd", proj, "--model", "mock/mock-1")
	tm.waitFor("Ask pi")
	tm.typeLine("hello")
	tm.waitFor("First answer, worth copying.")

	steps := []struct {
		keys, want string
	}{
		{"/hotkeys\r", "ctrl+shift+p previous model app.model.cycleBackward"},
		{"/thinking high\r", "thinking: high"},
		{"\x1b[Z", "thinking: off"},    // shift+tab: past the highest level the model takes
		{"\x10", "model: mock/mock-2"}, // ctrl+p
		{"/model\r", "Use which model?"},
		{"1", "model: mock/mock-1"},
		{"/model mock-2\r", "model: mock/mock-2"},
		{"/scoped-models\r", "Models for ctrl+p"},
		{" ", "[x] mock/mock-1"},
		{"\r", "ctrl+p cycles through mock/mock-1"},
		{"/copy\r", "copied the last reply"},
		{"/export out.html\r", "exported 2 messages to " + filepath.Join(proj, "out.html")},
		{"/export saved.jsonl\r", "saved.jsonl"},
		{"/new\r", "new session:"},
		{"/import saved.jsonl\r", "Replace the current session with saved.jsonl?"},
		{"y", "imported saved.jsonl"},
		{"/trust\r", "saved decision: none"},
		{"t", "saved: trust (trust.json)"},
		{"/changelog\r", "0.3.0"},
		{"/share\r", "Anyone with the link can read it."},
		{"y", "shared as a secret gist: https://gist.github.com/pi-test/abc123"},
		{"/reloda\r", "did you mean /reload?"},
	}
	for _, st := range steps {
		if strings.HasSuffix(st.keys, "\r") {
			tm.typeLine(strings.TrimSuffix(st.keys, "\r"))
		} else {
			tm.press(st.keys)
		}
		tm.waitFor(st.want)
		time.Sleep(50 * time.Millisecond)
	}
	if n := len(s.Requests()); n != 1 {
		t.Errorf("the commands reached the model: %d requests", n)
	}
	html, err := os.ReadFile(filepath.Join(proj, "out.html"))
	if err != nil || !strings.Contains(string(html), "First answer, worth copying.") {
		t.Errorf("export: %v", err)
	}
	if page, err := os.ReadFile(shared); err != nil || !strings.Contains(string(page), "First answer, worth copying.") {
		t.Errorf("share did not upload the session: %v", err)
	}
	imported, _ := filepath.Glob(filepath.Join(c.agentDir, "sessions", "*", "saved.jsonl"))
	if len(imported) != 1 {
		t.Errorf("the import was not copied next to the sessions: %v", imported)
	}
	if data, _ := os.ReadFile(filepath.Join(c.agentDir, "trust.json")); !strings.Contains(string(data), filepath.Base(proj)) {
		t.Errorf("/trust did not save: %s", data)
	}
	tm.typeLine("/quit")
	if !tm.exited(30 * time.Second) {
		t.Fatal("/quit did not quit")
	}
}

// TestUISettingsTakeEffect: enabledModels scopes ctrl+p, externalEditor is
// what ctrl+g opens, and sessionShareDestination "radius" is refused with
// the setting named.
func TestUISettingsTakeEffect(t *testing.T) {
	c := newCLI(t)
	proj := t.TempDir()
	s := &scripted.Server{}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	editor := filepath.Join(t.TempDir(), "ed")
	writeFiles(t, filepath.Dir(editor), map[string]string{"ed": "#!/bin/sh\nprintf 'written in the editor' > \"$1\"\n"})
	os.Chmod(editor, 0o755)
	writeFiles(t, c.agentDir, map[string]string{
		"models.json":   `{"providers":{"mock":{"baseUrl":"` + srv.URL + `/v1","api":"openai-completions","apiKey":"k","models":[{"id":"mock-1"},{"id":"mock-2"},{"id":"mock-3"}]}}}`,
		"settings.json": `{"enabledModels":["mock-3","mock-2"],"externalEditor":"` + editor + `","sessionShareDestination":"radius","hideThinkingBlock":true}`,
	})
	tm := startTerminal(t, c, proj, "--cwd", proj, "--model", "mock/mock-1")
	tm.waitFor("Ask pi")
	tm.press("\x10") // ctrl+p: into the scope, at its first model
	tm.waitFor("model: mock/mock-3")
	tm.press("\x10")
	tm.waitFor("model: mock/mock-2")
	tm.press("\x07") // ctrl+g
	tm.waitFor("> written in the editor")
	tm.press("\x03") // clear the editor
	time.Sleep(100 * time.Millisecond)
	tm.typeLine("/share")
	tm.waitFor(`sessionShareDestination is "radius"`)
	if n := len(s.Requests()); n != 0 {
		t.Errorf("%d requests reached the model", n)
	}
}

// TestSettingsScreenWritesTheFile: /settings changes a key in the global
// settings.json, keeping what else the file holds.
func TestSettingsScreenWritesTheFile(t *testing.T) {
	c := newCLI(t)
	proj := t.TempDir()
	s := &scripted.Server{}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	writeFiles(t, c.agentDir, map[string]string{
		"models.json":   `{"providers":{"mock":{"baseUrl":"` + srv.URL + `/v1","api":"openai-completions","apiKey":"k","models":[{"id":"mock-1"}]}}}`,
		"settings.json": `{"theme": "dark", "lastChangelogVersion": "1.6.0"}`,
	})
	list, err := uiSettings(settings.New(settings.Builtin()), c.agentDir)
	if err != nil {
		t.Fatal(err)
	}
	at := -1
	for i, st := range list {
		if st.Name == "hideThinkingBlock" {
			at = i
		}
	}
	if at < 0 {
		t.Fatal("hideThinkingBlock is not offered")
	}
	tm := startTerminal(t, c, proj, "--cwd", proj)
	tm.waitFor("Ask pi")
	tm.typeLine("/settings")
	tm.waitFor("Settings (enter changes one")
	for range at {
		tm.press("\x1b[B")
		time.Sleep(20 * time.Millisecond)
	}
	tm.press("\r")
	tm.waitFor("hideThinkingBlock (now false)")
	tm.press("1") // true
	tm.waitFor("hideThinkingBlock = true (saved in")
	got, _ := os.ReadFile(filepath.Join(c.agentDir, "settings.json"))
	if want := "{\n  \"theme\": \"dark\",\n  \"lastChangelogVersion\": \"1.6.0\",\n  \"hideThinkingBlock\": true\n}\n"; string(got) != want {
		t.Errorf("settings.json:\n%s", got)
	}
}

// TestLoginAndLogout: /login stores a typed key in auth.json (0600) without
// drawing it, the next request uses it, and /logout forgets it.
func TestLoginAndLogout(t *testing.T) {
	c := newCLI(t)
	proj := t.TempDir()
	var auths []string
	var mu sync.Mutex
	s := &scripted.Server{Replies: []scripted.Reply{{Text: "answered with the new key"}}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auths = append(auths, r.Header.Get("Authorization"))
		mu.Unlock()
		s.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	writeFiles(t, c.agentDir, map[string]string{"models.json": `{"providers":{"mock":{"baseUrl":"` + srv.URL + `/v1","api":"openai-completions","apiKey":"old-key","models":[{"id":"mock-1"}]}}}`})
	tm := startTerminal(t, c, proj, "--cwd", proj)
	tm.waitFor("Ask pi")
	tm.typeLine("/login")
	tm.waitFor("Store an API key for which provider?")
	tm.press("1")
	tm.waitFor("API key for mock")
	tm.press("sk-secret-4711")
	time.Sleep(100 * time.Millisecond)
	tm.press("\r")
	screen := tm.waitFor("stored an API key for mock in " + filepath.Join(c.agentDir, "auth.json"))
	if strings.Contains(screen, "sk-secret-4711") {
		t.Fatal("the key was drawn on the screen")
	}
	fi, err := os.Stat(filepath.Join(c.agentDir, "auth.json"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("auth.json: %v %v", err, fi)
	}
	tm.typeLine("hello")
	tm.waitFor("answered with the new key")
	mu.Lock()
	if len(auths) != 1 || auths[0] != "Bearer sk-secret-4711" {
		t.Errorf("the request did not use the stored key: %q", auths)
	}
	mu.Unlock()
	tm.typeLine("/logout")
	tm.waitFor("Forget the stored credential of which provider?")
	tm.press("1")
	tm.waitFor("forgot the stored credential of mock")
	if b, _ := os.ReadFile(filepath.Join(c.agentDir, "auth.json")); strings.Contains(string(b), "sk-secret") {
		t.Errorf("auth.json still holds the key: %s", b)
	}
}
