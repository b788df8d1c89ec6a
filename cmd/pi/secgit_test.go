//go:build linux

package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/piwasm/pi/internal/scripted"
)

// The attacks of issue 32 on git: a scripted model asks, through the bash
// tool of a real pi -p run, for code planted where the user's next git
// (run outside any sandbox) would run it. Each test then runs git as the
// user would and checks that nothing planted ran.

// secGit makes e.proj a repository with one commit and returns a function
// that runs git there as the user, with MARKER the file any planted hook
// or fsmonitor creates.
func secGit(t *testing.T, e *secEnv) (userGit func(args ...string), marker string) {
	t.Helper()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	marker = filepath.Join(e.home, "MARKER")
	userGit = func(args ...string) {
		t.Helper()
		cmd := exec.Command(git, append([]string{"-c", "user.email=u@x", "-c", "user.name=u"}, args...)...)
		cmd.Dir = e.proj
		cmd.Env = append(os.Environ(), "HOME="+e.home, "GIT_CONFIG_NOSYSTEM=1", "XDG_CONFIG_HOME="+filepath.Join(e.home, ".config"))
		_, _ = cmd.CombinedOutput()
	}
	writeFiles(t, e.proj, map[string]string{"README": "hi\n"})
	userGit("init", "-q", "-b", "main")
	userGit("add", "README")
	userGit("commit", "-qm", "first")
	if err := os.MkdirAll(filepath.Join(e.proj, ".git", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	return userGit, marker
}

// secPlant defines plant DIR: a post-checkout hook and core.fsmonitor and
// core.hooksPath in DIR/config, each creating the marker.
func secPlant(marker string) string {
	return "MARKER=" + marker + `
plant() {
	mkdir -p "$1/hooks"; printf '#!/bin/sh\ntouch %s\n' "$MARKER" > "$1/hooks/post-checkout"; chmod +x "$1/hooks/post-checkout"
	printf '[core]\n\tfsmonitor = "touch %s; false"\n\thooksPath = %s/hooks\n' "$MARKER" "$PWD/$1" >> "$1/config"
}
`
}

// userGitRunsNothing runs the user's next git status and checkout and
// fails when they ran planted code.
func userGitRunsNothing(t *testing.T, userGit func(...string), marker string) {
	t.Helper()
	userGit("status")
	userGit("checkout", "-q", "-b", "after-pi")
	if _, err := os.Lstat(marker); err == nil {
		t.Error("the user's next git ran code a command planted")
	}
}

// mv .git .git-old && mkdir .git && cp -a .git-old/. .git/ left the
// read-only hooks and config under the old name and gave the command a
// .git of its own. Renaming or removing .git is now refused; git's own
// work (commit, checkout -b, stash) still runs in the sandbox.
func TestSecGitDirCannotBeMovedAside(t *testing.T) {
	e := newSecEnv(t)
	userGit, marker := secGit(t, e)
	if !e.kernel(t) {
		t.Skip("commands are not confined here")
	}
	config, _ := os.ReadFile(filepath.Join(e.proj, ".git", "config"))
	res := e.run(t, []scripted.Reply{
		turn(secBash("c1", "git -c user.email=a@b -c user.name=n commit -q --allow-empty -m second && git checkout -qb feature && echo x >> README && git stash -q && git stash pop -q && echo GIT-OK")),
		turn(secBash("c2", secPlant(marker)+"mv .git .git-old && mkdir .git && cp -a .git-old/. .git/ && plant .git; echo DONE")),
	})
	hasText(t, res, "c1", false, "GIT-OK")
	hasText(t, res, "c2", false, "Device or resource busy", "DONE")
	userGitRunsNothing(t, userGit, marker)
	fileIs(t, filepath.Join(e.proj, ".git", "config"), string(config))
	mustNotExist(t, filepath.Join(e.proj, ".git", "hooks", "post-checkout"))
}

// With the home directory writable (pi started in ~), ~/.config cannot be
// renamed away to make room for a new ~/.config/git/config or autostart
// entry.
func TestSecHomeConfigCannotBeMovedAside(t *testing.T) {
	e := newSecEnv(t)
	userGit, marker := secGit(t, e)
	if !e.kernel(t) {
		t.Skip("commands are not confined here")
	}
	writeFiles(t, e.home, map[string]string{".config/git/config": "[user]\n\tname = u\n", ".config/autostart/keep.desktop": "[Desktop Entry]\n"})
	writeFiles(t, e.c.agentDir, map[string]string{"settings.json": `{"sandbox":{"writableRoots":["~"]}}`})
	res := e.run(t, []scripted.Reply{
		turn(secBash("c1", "mv ~/.config ~/.config-old; mkdir -p ~/.config/git ~/.config/autostart; "+
			"printf '[core]\\n\\tfsmonitor = \"touch "+marker+"; false\"\\n' > ~/.config/git/config; "+
			"printf '[Desktop Entry]\\nExec=touch "+marker+"\\n' > ~/.config/autostart/evil.desktop; echo DONE")),
	})
	hasText(t, res, "c1", false, "DONE")
	userGitRunsNothing(t, userGit, marker)
	fileIs(t, filepath.Join(e.home, ".config", "git", "config"), "[user]\n\tname = u\n")
	mustNotExist(t, filepath.Join(e.home, ".config", "autostart", "evil.desktop"))
}

// .git/commondir sends git to another directory for its config and hooks:
// a copy of .git in the tree with a hook and an fsmonitor planted, and
// ../evilgit written into .git/commondir. commondir is protected although
// it did not exist: the command's is moved aside, and the call says so.
func TestSecGitCommondirRedirect(t *testing.T) {
	e := newSecEnv(t)
	userGit, marker := secGit(t, e)
	if !e.kernel(t) {
		t.Skip("commands are not confined here")
	}
	res := e.run(t, []scripted.Reply{
		turn(secBash("c1", secPlant(marker)+"cp -a .git evilgit; plant evilgit; echo ../evilgit > .git/commondir; echo DONE")),
	})
	hasText(t, res, "c1", true, "DONE", "commondir.refused-by-pi")
	mustNotExist(t, filepath.Join(e.proj, ".git", "commondir"))
	userGitRunsNothing(t, userGit, marker)
}

// In a linked worktree .git is a file naming git's directory: rewriting it
// to a planted copy is refused.
func TestSecGitFileRedirect(t *testing.T) {
	e := newSecEnv(t)
	userGit, marker := secGit(t, e)
	if !e.kernel(t) {
		t.Skip("commands are not confined here")
	}
	main := e.proj
	e.proj = filepath.Join(e.home, "linked")
	cmd := exec.Command("git", "worktree", "add", "-q", "-b", "linked", e.proj)
	cmd.Dir = main
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git worktree add: %v %s", err, out)
	}
	dotGit, _ := os.ReadFile(filepath.Join(e.proj, ".git"))
	res := e.run(t, []scripted.Reply{
		turn(secBash("c1", secPlant(marker)+"cp -a "+filepath.Join(main, ".git")+" evilgit; rm -rf evilgit/worktrees; plant evilgit; echo 'gitdir: evilgit' > .git; echo DONE")),
	})
	hasText(t, res, "c1", false, "DONE")
	fileIs(t, filepath.Join(e.proj, ".git"), string(dotGit))
	userGitRunsNothing(t, userGit, marker)
}

// A process a command leaves running writes .git/commondir again after
// the call's sweep moved the command's own aside. pi kills such processes
// when it exits and then sweeps once more, so the user's next git finds
// none. The model's last reply waits until the process has written (a
// condition, not a delay), so the file is there when pi ends.
func TestSecBackgroundWriterIsSweptAtExit(t *testing.T) {
	e := newSecEnv(t)
	userGit, marker := secGit(t, e)
	if !e.kernel(t) {
		t.Skip("commands are not confined here")
	}
	wrote := filepath.Join(e.proj, "bg-wrote")
	c1 := secPlant(marker) + `cp -a .git evilgit; plant evilgit; echo ../evilgit > .git/commondir
setsid sh -c 'while [ ! -e .git/commondir.refused-by-pi ]; do sleep 0.01; done; echo ../evilgit > .git/commondir; touch bg-wrote' </dev/null >/dev/null 2>&1 &
echo STARTED`
	s := &scripted.Server{Replies: []scripted.Reply{turn(secBash("c1", c1)), {Text: "done"}}}
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if requests.Add(1) == 2 {
			// The final reply: only once the process wrote after the sweep.
			for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
				if _, err := os.Lstat(wrote); err == nil {
					break
				}
				if time.Now().After(deadline) {
					t.Error("the command's background process never wrote after the sweep")
					break
				}
			}
		}
		s.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	writeFiles(t, e.c.agentDir, map[string]string{"models.json": `{"providers":{"mock":{"baseUrl":"` + srv.URL + `/v1","api":"openai-completions","apiKey":"k","models":[{"id":"mock-1"}]}}}`})
	_, errs, code := e.c.runPi(nil, "-p", "--cwd", e.proj, "go")
	if code != 0 {
		t.Fatalf("pi exited %d: %s", code, errs)
	}
	mustNotExist(t, filepath.Join(e.proj, ".git", "commondir"))
	if !strings.Contains(errs, "commondir") || !strings.Contains(errs, "left running") {
		t.Errorf("pi did not tell the user what it moved at exit: %s", errs)
	}
	userGitRunsNothing(t, userGit, marker)
}
