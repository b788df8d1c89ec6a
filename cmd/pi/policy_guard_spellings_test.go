//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/piwasm/pi/internal/scripted"
)

// TestPolicyGuardCatchesForcePushSpellings is issue 19's attack on the
// example policy extension, run as a user runs it (pi -p -e policy-guard):
// force pushes spelled through nice, timeout and git's -c
// remote.NAME.push got past its check. A stand-in git on PATH marks any
// push it is asked for; none may run, and each call is refused for force.
func TestPolicyGuardCatchesForcePushSpellings(t *testing.T) {
	c := newCLI(t)
	ext := examplePlugin(t, "policy-guard")
	bin := filepath.Join(c.home, "bin")
	mark := filepath.Join(c.home, "pushed")
	writeFiles(t, bin, map[string]string{"git": "#!/bin/sh\necho \"$*\" >> " + mark + "\nexit 0\n"})
	if err := os.Chmod(filepath.Join(bin, "git"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	spellings := []string{
		`nice -n 5 git push -f`,
		`timeout 30 git push --force`,
		`git -c remote.origin.push=+refs/heads/main:refs/heads/main push`,
		`env -S 'git push --force'`,
		`echo 'git push -f' | sh`,
	}
	var calls []scripted.Call
	for i, s := range spellings {
		args, _ := json.Marshal(map[string]any{"command": s})
		calls = append(calls, scripted.Call{ID: fmt.Sprintf("c%d", i), Name: "bash", Args: args})
	}
	calls = append(calls, scripted.Call{ID: "ok", Name: "bash", Args: json.RawMessage(`{"command":"git status"}`)})
	scriptedModel(t, c, "openai-completions", []scripted.Reply{{Calls: calls}, {Text: "done"}})
	proj := filepath.Join(c.home, "proj")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	out, errs, code := c.run("-p", "--cwd", proj, "-e", ext, "push it")
	if code != 0 || out != "done\n" {
		t.Fatalf("exit %d stdout %q\nstderr: %s", code, out, errs)
	}
	ran, _ := os.ReadFile(mark)
	if strings.TrimSpace(string(ran)) != "status" {
		t.Errorf("git ran with: %q, want only the harmless git status", ran)
	}
	msgs := sessionMessages(t, c.agentDir)
	for i, s := range spellings {
		r := resultOf(t, msgs, fmt.Sprintf("c%d", i))
		if text := r.Content.Text(); !r.Failed() || !strings.Contains(text, "force") {
			t.Errorf("%q: result %q, want a refusal for force", s, text)
		}
	}
}
