package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTrustCommand(t *testing.T) {
	c := newCLI(t)
	parent := t.TempDir()
	proj := filepath.Join(parent, "app")
	writeFiles(t, proj, map[string]string{".pi/SYSTEM.md": "Project system prompt."})
	uses := func() bool {
		return strings.HasPrefix(c.promptJSON("--cwd", proj).Text, "Project system prompt.")
	}
	if uses() {
		t.Fatal("untrusted project used")
	}
	out, errs, code := c.run("trust", proj)
	if code != 0 || !strings.Contains(out, "trusted "+proj) {
		t.Fatalf("trust: %d %q %q", code, out, errs)
	}
	if !uses() {
		t.Fatal("trust not honoured")
	}
	// The file is in the shared form: {dir: bool}.
	var m map[string]any
	data, err := os.ReadFile(filepath.Join(c.agentDir, "trust.json"))
	if err != nil || json.Unmarshal(data, &m) != nil {
		t.Fatalf("trust.json: %v %s", err, data)
	}
	key, _ := filepath.EvalSymlinks(proj)
	if m[key] != true || len(m) != 1 {
		t.Fatalf("trust.json: %s", data)
	}
	if out, _, code := c.run("trust", "--revoke", proj); code != 0 || !strings.Contains(out, "no longer trusted") {
		t.Fatalf("revoke: %d %q", code, out)
	}
	if uses() {
		t.Fatal("revoke not honoured")
	}
	// Revoking a folder trusted through its parent stores a "no" for it.
	if _, _, code := c.run("trust", parent); code != 0 || !uses() {
		t.Fatal("parent trust not inherited")
	}
	out, _, code = c.run("trust", "--revoke", proj)
	if code != 0 || !strings.Contains(out, "trusted through") || uses() {
		t.Fatalf("revoke under trusted parent: %d %q", code, out)
	}
	// Relative DIR is taken from the working directory (the home in tests).
	writeFiles(t, c.home, map[string]string{"rel/.keep": ""})
	if out, _, code := c.run("trust", "rel"); code != 0 || !strings.Contains(out, filepath.Join(c.home, "rel")) {
		t.Fatalf("relative: %d %q", code, out)
	}
	for _, bad := range [][]string{{"trust", "a", "b"}, {"trust", "--nope"}} {
		if _, _, code := c.run(bad...); code != exitUsage {
			t.Errorf("%v: exit %d", bad, code)
		}
	}
	if _, errs, code := c.run("trust", filepath.Join(parent, "missing")); code != 1 || !strings.Contains(errs, "missing") {
		t.Errorf("missing dir: %d %q", code, errs)
	}
	// A foreign trust.json is reported and left as it was.
	foreign := `{"projects": {"x": "maybe"}}`
	writeFiles(t, c.agentDir, map[string]string{"trust.json": foreign})
	if _, errs, code := c.run("trust", proj); code != 1 || !strings.Contains(errs, "trust.json") {
		t.Errorf("foreign file: %d %q", code, errs)
	}
	if data, _ := os.ReadFile(filepath.Join(c.agentDir, "trust.json")); string(data) != foreign {
		t.Errorf("foreign file rewritten: %s", data)
	}
}

func TestShellWord(t *testing.T) {
	for in, want := range map[string]string{"/a/b": "/a/b", "/my proj": "'/my proj'", "it's": `'it'\''s'`, "": "''", "$HOME": "'$HOME'"} {
		if got := shellWord(in); got != want {
			t.Errorf("%q: %s, want %s", in, got, want)
		}
	}
}
