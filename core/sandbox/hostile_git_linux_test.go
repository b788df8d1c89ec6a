package sandbox_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/piwasm/pi/core/sandbox"
	"github.com/piwasm/pi/core/settings"
)

// gitRepo makes w.tree a repository with one commit, as the user's, and
// returns a function that runs git there as the user would after pi
// (unconfined), with a marker file that any planted hook or fsmonitor
// would create.
func gitRepo(t *testing.T, w world) (userGit func(args ...string) string) {
	t.Helper()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	userGit = func(args ...string) string {
		t.Helper()
		cmd := exec.Command(git, append([]string{"-c", "user.email=u@x", "-c", "user.name=u"}, args...)...)
		cmd.Dir = w.tree
		cmd.Env = append(os.Environ(), "HOME="+w.home, "GIT_CONFIG_NOSYSTEM=1", "XDG_CONFIG_HOME="+filepath.Join(w.home, ".config"))
		out, _ := cmd.CombinedOutput()
		return string(out)
	}
	if err := os.WriteFile(filepath.Join(w.tree, "README"), []byte("hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	userGit("init", "-q", "-b", "main")
	userGit("add", "README")
	userGit("commit", "-qm", "first")
	if err := os.MkdirAll(filepath.Join(w.tree, ".git", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	return userGit
}

// plant is the payload of every attack below: a post-checkout hook and a
// core.fsmonitor that create MARKER (both run by the user's next git).
const plantScript = `plant() { # $1: a git directory
	mkdir -p "$1/hooks"; printf '#!/bin/sh\ntouch %s\n' "$MARKER" > "$1/hooks/post-checkout"; chmod +x "$1/hooks/post-checkout"
	printf '[core]\n\tfsmonitor = "touch %s; false"\n\thooksPath = %s/hooks\n' "$MARKER" "$PWD/$1" >> "$1/config"
}
`

// After an attack: the user's next git status and git checkout must run
// nothing the command planted.
func assertNothingRuns(t *testing.T, w world, userGit func(...string) string, marker, out string) {
	t.Helper()
	userGit("status")
	userGit("checkout", "-q", "-b", "after")
	if _, err := os.Lstat(marker); err == nil {
		t.Errorf("the user's next git ran code the command planted; the command printed:\n%s", out)
	}
}

// Renaming the parent of a protected path: `mv .git .git-old && mkdir .git
// && cp -a .git-old/. .git/` left the read-only hooks and config behind
// and gave the command a .git of its own. Now .git cannot be renamed or
// removed, and a replacement of a protected path would be moved aside.
func TestProtectedParentCannotBeMoved(t *testing.T) {
	w := newWorld(t)
	if !requireEnforced(t, w) {
		return
	}
	userGit := gitRepo(t, w)
	marker := filepath.Join(w.base, "MARKER")
	p := w.policy(t, sandbox.Flags{})
	if !p.Enforcement().MountNS {
		t.Skip("no mount namespace: the protected paths hold for the file tools only")
	}
	// git works for commands (its data in .git stays writable).
	out, code := run(t, p, w.tree, `git -c user.email=a@b -c user.name=n commit -q --allow-empty -m second && git checkout -qb feature && echo x >> README && git stash -q && git stash pop -q && git log --oneline | wc -l && echo GIT-OK`)
	if code != 0 || !strings.Contains(out, "GIT-OK") {
		t.Errorf("git in the sandbox: %s", out)
	}
	config, _ := os.ReadFile(filepath.Join(w.tree, ".git", "config"))
	out, _ = run(t, p, w.tree, "export MARKER="+marker+"\n"+plantScript+`
mv .git .git-old && mkdir .git && cp -a .git-old/. .git/ && plant .git
cp -a .git .git2; rm -rf .git/hooks .git/config; rm -rf .git; mv .git2 .git || mv -T .git2 .git; plant .git
echo DONE`)
	if !strings.Contains(out, "DONE") {
		t.Fatalf("the script did not run: %s", out)
	}
	t.Logf("%s", out)
	assertNothingRuns(t, w, userGit, marker, out)
	if got, _ := os.ReadFile(filepath.Join(w.tree, ".git", "config")); string(got) != string(config) {
		t.Errorf(".git/config changed:\n%s\nthe command printed:\n%s", got, out)
	}
}

// With the home directory in a writable root, ~/.config cannot be renamed
// away to make room for a new ~/.config/git/config.
func TestProtectedHomeParentCannotBeMoved(t *testing.T) {
	w := newWorld(t)
	if !requireEnforced(t, w) {
		return
	}
	userGit := gitRepo(t, w)
	marker := filepath.Join(w.base, "MARKER")
	gitCfg := filepath.Join(w.home, ".config", "git", "config")
	if err := os.MkdirAll(filepath.Dir(gitCfg), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(gitCfg, []byte("[user]\n\tname = u\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(w.home, ".config", "autostart"), 0o755); err != nil {
		t.Fatal(err)
	}
	p, err := sandbox.Build(sandbox.Inputs{Cwd: w.tree, Home: w.home, Tmp: w.tmp, Settings: writableHome(t, w)})
	if err != nil {
		t.Fatal(err)
	}
	if !p.Enforcement().MountNS {
		t.Skip("no mount namespace: the protected paths hold for the file tools only")
	}
	out, _ := run(t, p, w.tree, `mv ~/.config ~/.config-old; mkdir -p ~/.config/git ~/.config/autostart
printf '[core]\n\tfsmonitor = "touch `+marker+`; false"\n' > ~/.config/git/config
printf '[Desktop Entry]\nExec=touch `+marker+`\n' > ~/.config/autostart/evil.desktop
echo DONE`)
	if !strings.Contains(out, "DONE") {
		t.Fatalf("the script did not run: %s", out)
	}
	assertNothingRuns(t, w, userGit, marker, out)
	if got, _ := os.ReadFile(gitCfg); string(got) != "[user]\n\tname = u\n" {
		t.Errorf("~/.config/git/config = %q; the command printed:\n%s", got, out)
	}
	if _, err := os.Lstat(filepath.Join(w.home, ".config", "autostart", "evil.desktop")); err == nil {
		t.Errorf("an autostart entry was planted; the command printed:\n%s", out)
	}
}

// .git/commondir sends git to another directory for its config and hooks:
// a command copies .git to a writable evilgit/, plants there and points
// commondir at it. commondir is protected although it does not exist.
func TestGitCommondirRedirect(t *testing.T) {
	w := newWorld(t)
	if !requireEnforced(t, w) {
		return
	}
	userGit := gitRepo(t, w)
	marker := filepath.Join(w.base, "MARKER")
	p := w.policy(t, sandbox.Flags{})
	out, code := run(t, p, w.tree, "export MARKER="+marker+"\n"+plantScript+`
cp -a .git evilgit; plant evilgit; echo ../evilgit > .git/commondir; echo DONE`)
	if !strings.Contains(out, "DONE") {
		t.Fatalf("the script did not run: %s", out)
	}
	if code != 1 || !strings.Contains(out, ".refused-by-pi") {
		t.Errorf("the call does not say commondir was moved aside: %s", out)
	}
	assertNothingRuns(t, w, userGit, marker, out)
}

func writableHome(t *testing.T, w world) sandbox.Settings {
	t.Helper()
	raw := []byte(`{"writableRoots":["` + w.home + `"]}`)
	s, warns := sandbox.LoadSettings([]settings.Value{{File: filepath.Join(w.base, "settings.json"), Raw: raw}}, w.home)
	if len(warns) > 0 {
		t.Fatal(warns)
	}
	return s
}
