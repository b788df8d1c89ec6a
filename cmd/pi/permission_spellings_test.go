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

// TestDenyRuleHoldsForEverySpelling is issue 19's attack on permission
// rules, as a user meets it: with deny ["bash(git push:*)"] in settings,
// a model asks bash to push in the spellings that got through before (a
// path, env -S, shell options before -c, builtin, brace expansion, $'…',
// a git alias, a pipe into sh, a here-document, find -exec, setsid,
// taskset, nice, timeout, -c remote.*.push, an unparsable script, a name
// built at run time). A stand-in git on PATH leaves a mark if it is ever
// run with "push"; none may run, and each call is refused by the rule.
func TestDenyRuleHoldsForEverySpelling(t *testing.T) {
	c := newCLI(t)
	bin := filepath.Join(c.home, "bin")
	mark := filepath.Join(c.home, "pushed")
	writeFiles(t, bin, map[string]string{"git": "#!/bin/sh\nfor a in \"$@\"; do [ \"$a\" = push ] && echo \"$*\" >> " + mark + "; done\nexit 0\n"})
	if err := os.Chmod(filepath.Join(bin, "git"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	git := filepath.Join(bin, "git")
	spellings := []string{
		git + " push",
		`env -S 'git push' origin`,
		`bash -o errexit -c 'git push'`,
		`builtin command git push`,
		`{git,push} origin`,
		`$'git' push`,
		`git -c alias.p=push p`,
		`echo git push | sh`,
		"sh <<EOF\ngit push\nEOF",
		`find . -maxdepth 0 -exec git push \;`,
		`setsid git push`,
		`taskset -c 0 git push`,
		`nice -n 5 git push -f`,
		`timeout 30 git push --force`,
		`git -c remote.origin.push=+refs/heads/main:refs/heads/main push`,
		`g=git; $g push`,
		`eval "$(echo git push)"`,
		`git push 'unterminated`,
		`stdbuf -o0 git push`,
	}
	var calls []scripted.Call
	for i, s := range spellings {
		args, _ := json.Marshal(map[string]any{"command": s})
		calls = append(calls, scripted.Call{ID: fmt.Sprintf("c%d", i), Name: "bash", Args: args})
	}
	scriptedModel(t, c, "openai-completions", []scripted.Reply{{Calls: calls}, {Text: "done"}})
	writeFiles(t, c.agentDir, map[string]string{"settings.json": `{"permissions":{"deny":["bash(git push:*)"]}}`})
	proj := filepath.Join(c.home, "proj")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	out, errs, code := c.run("-p", "--cwd", proj, "push it")
	if code != 0 || out != "done\n" {
		t.Fatalf("exit %d stdout %q\nstderr: %s", code, out, errs)
	}
	if b, err := os.ReadFile(mark); err == nil {
		t.Errorf("git push ran despite the deny rule:\n%s", b)
	}
	msgs := sessionMessages(t, c.agentDir)
	for i, s := range spellings {
		r := resultOf(t, msgs, fmt.Sprintf("c%d", i))
		if text := r.Content.Text(); !r.Failed() || !strings.Contains(text, "bash(git push:*)") {
			t.Errorf("%q: result %q, want a refusal naming the rule", s, text)
		}
	}
}

// TestDenyRuleHoldsForGitCoreSpellings is issue 32's attack: git runs
// `git push` as the program git-push in its git-core directory, and that
// program can be run directly, under every wrapper the parser knows. A
// stand-in git-core/git-push (also on PATH) leaves a mark if it ever runs;
// none may, and each call is refused by the rule for git push.
func TestDenyRuleHoldsForGitCoreSpellings(t *testing.T) {
	c := newCLI(t)
	core := filepath.Join(c.home, "git-core")
	mark := filepath.Join(c.home, "pushed")
	writeFiles(t, core, map[string]string{"git-push": "#!/bin/sh\necho \"$*\" >> " + mark + "\nexit 0\n"})
	if err := os.Chmod(filepath.Join(core, "git-push"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", core+string(os.PathListSeparator)+os.Getenv("PATH"))
	push := filepath.Join(core, "git-push")
	spellings := []string{
		push + " origin main",
		`git-push`,
		`\git-push --force`,
		`"` + push + `" origin`,
		`env ` + push,
		`env GIT_DIR=.git git-push`,
		`GIT_TRACE=1 ` + push,
		`command ` + push,
		`exec git-push`,
		`nice -n 5 git-push`,
		`timeout 30 ` + push + ` --force`,
		`echo origin | xargs git-push`,
		`sh -c 'git-push origin'`,
		`cd ` + c.home + ` && ./git-core/git-push`,
	}
	var calls []scripted.Call
	for i, s := range spellings {
		args, _ := json.Marshal(map[string]any{"command": s})
		calls = append(calls, scripted.Call{ID: fmt.Sprintf("c%d", i), Name: "bash", Args: args})
	}
	scriptedModel(t, c, "openai-completions", []scripted.Reply{{Calls: calls}, {Text: "done"}})
	writeFiles(t, c.agentDir, map[string]string{"settings.json": `{"permissions":{"deny":["bash(git push:*)"]}}`})
	proj := filepath.Join(c.home, "proj")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	out, errs, code := c.run("-p", "--cwd", proj, "push it")
	if code != 0 || out != "done\n" {
		t.Fatalf("exit %d stdout %q\nstderr: %s", code, out, errs)
	}
	if b, err := os.ReadFile(mark); err == nil {
		t.Errorf("git-push ran despite the deny rule:\n%s", b)
	}
	msgs := sessionMessages(t, c.agentDir)
	for i, s := range spellings {
		r := resultOf(t, msgs, fmt.Sprintf("c%d", i))
		if text := r.Content.Text(); !r.Failed() || !strings.Contains(text, "bash(git push:*)") {
			t.Errorf("%q: result %q, want a refusal naming the rule", s, text)
		}
	}
}
