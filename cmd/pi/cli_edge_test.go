package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReviewDashNaAsFlagValue: a message that looks like a flag reaches the
// model only after "--", as with the established harness; -na before it is
// the --no-approve flag, never text.
func TestReviewDashNaAsFlagValue(t *testing.T) {
	c := newCLI(t)
	proj := t.TempDir()
	if _, errs, code := c.run("-p", "-na", "--cwd", proj, "--dry-run", "--no-session"); code != 2 || !strings.Contains(errs, "nothing to send") {
		t.Fatalf("-p -na: exit %d: %s", code, errs)
	}
	out, errs, code := c.run("-p", "--cwd", proj, "--dry-run", "--no-session", "--", "-na")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var body struct {
		Messages []struct {
			Role    string
			Content json.RawMessage
		}
	}
	if err := json.Unmarshal([]byte(out), &body); err != nil {
		t.Fatal(err)
	}
	last := body.Messages[len(body.Messages)-1]
	if string(last.Content) != `[{"type":"text","text":"-na"}]` {
		t.Fatalf("the user's text -na was sent as %q", last.Content)
	}
}

// TestReviewResourcesDiagnosticsHavePath: issue 3 names the JSON shape
// diagnostics:[{kind,path,message}]. A prompt that cannot be built (here a
// settings section referring to an unknown variable) adds a diagnostic with
// no "path" key at all, though the section comes from a known settings file.
func TestReviewResourcesDiagnosticsHavePath(t *testing.T) {
	c := newCLI(t)
	proj := t.TempDir()
	writeFiles(t, c.agentDir, map[string]string{"settings.json": `{"sections":{"ticket":{"text":"Work on {{nope}}.","interpolate":true}}}`})
	out, errs, code := c.run("resources", "--cwd", proj, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r struct {
		Diagnostics []map[string]any `json:"diagnostics"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Diagnostics) == 0 {
		t.Fatal("setup: want a diagnostic for the broken section")
	}
	for _, d := range r.Diagnostics {
		for _, k := range []string{"kind", "path", "message"} {
			if _, ok := d[k]; !ok {
				t.Errorf("diagnostic %v has no %q key", d, k)
			}
		}
	}
}

// TestReviewContinueStaysInItsDirectory: session directories are named by
// turning "/" into "-", so /x/a-b and /x/a/b share one directory, and
// --continue in one project appends to the other project's session (whose
// header names a different cwd).
func TestReviewContinueStaysInItsDirectory(t *testing.T) {
	c := newCLI(t)
	srv, _ := mockOpenAI(t)
	writeFiles(t, c.agentDir, map[string]string{"models.json": `{"providers":{"mock":{"baseUrl":"` + srv.URL + `/v1","api":"openai-completions","apiKey":"k","models":[{"id":"mock-1"}]}}}`})
	root := t.TempDir()
	a := filepath.Join(root, "a-b")
	b := filepath.Join(root, "a", "b")
	for _, d := range []string{a, b} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if _, errs, code := c.run("-p", "in a-b", "--cwd", a); code != 0 {
		t.Fatal(errs)
	}
	if _, errs, code := c.run("-p", "in a/b", "--cwd", b, "-c"); code != 0 {
		t.Fatal(errs)
	}
	files, _ := filepath.Glob(filepath.Join(c.agentDir, "sessions", "*", "*.jsonl"))
	for _, f := range files {
		data, _ := os.ReadFile(f)
		if strings.Contains(string(data), "in a-b") && strings.Contains(string(data), "in a/b") {
			t.Fatalf("--continue in %s appended to the session of %s (%s)", b, a, f)
		}
	}
}

// TestReviewSystemPromptFileRelativeToShell: `--system-prompt my.md` names a
// file in the directory pi was started from; with --cwd pointing elsewhere
// the value is resolved against --cwd, does not exist there, and the file
// name itself silently becomes the whole system prompt.
func TestReviewSystemPromptFileRelativeToShell(t *testing.T) {
	c := newCLI(t)
	proj := t.TempDir()
	writeFiles(t, c.home, map[string]string{"my.md": "From the file."}) // c.home is the process wd in newCLI
	p := c.promptJSON("--cwd", proj, "--system-prompt", "my.md")
	if p.Sections[0].Text == "my.md" {
		t.Fatalf("--system-prompt my.md (an existing file in the working directory of the process) was used as literal text %q", p.Sections[0].Text)
	}
}
