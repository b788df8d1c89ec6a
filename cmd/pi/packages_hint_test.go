package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// hintedCommand returns the arguments of the "run pi ... to store the
// grant" line of an install's output.
func hintedCommand(t *testing.T, out string) []string {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		if cmd, ok := strings.CutPrefix(line, "run pi "); ok && strings.HasSuffix(cmd, " to store the grant") {
			return strings.Fields(strings.TrimSuffix(cmd, " to store the grant"))
		}
	}
	t.Fatalf("no grant hint in:\n%s", out)
	return nil
}

// TestInstallHintAndUpdateWorkElsewhere: the command suggested for
// granting later works as printed, from another directory, for a local and
// a git source; pi update of a package installed from a relative path
// works outside the directory it was installed from.
func TestInstallHintAndUpdateWorkElsewhere(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	c := newCLI(t)
	_, files := extPackage(t, "git-branch", nil)
	work := t.TempDir()
	for f, b := range files {
		writeFiles(t, filepath.Join(work, "src"), map[string]string{f: string(b)})
	}
	elsewhere := t.TempDir()

	out, errs, code := c.runExt("", false, work, "install", "./src")
	if code != 0 {
		t.Fatalf("install ./src: exit %d\n%s%s", code, out, errs)
	}
	hint := hintedCommand(t, out)
	out, errs, code = c.runExt("", false, elsewhere, hint...)
	if code != 0 || !strings.Contains(out, "granted file .git/HEAD") {
		t.Fatalf("the hint %q from another directory: exit %d\n%s%s", hint, code, out, errs)
	}
	out, errs, code = c.runExt("", false, elsewhere, "update", "git-branch")
	if code != 0 || !strings.Contains(out, "git-branch") {
		t.Fatalf("update from another directory: exit %d\n%s%s", code, out, errs)
	}

	repo := filepath.Join(t.TempDir(), "repo")
	os.CopyFS(repo, os.DirFS(filepath.Join(work, "src")))
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "v1"}} {
		if b, err := exec.Command("git", append([]string{"-C", repo}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, b)
		}
	}
	c2 := newCLI(t)
	out, errs, code = c2.runExt("", false, work, "install", "file://"+repo)
	if code != 0 {
		t.Fatalf("git install: exit %d\n%s%s", code, out, errs)
	}
	hint = hintedCommand(t, out)
	if out, errs, code = c2.runExt("", false, elsewhere, hint...); code != 0 || !strings.Contains(out, "granted file .git/HEAD") {
		t.Fatalf("the hint %q after a git install: exit %d\n%s%s", hint, code, out, errs)
	}
}

// TestPackageCommandsHelp: --help of the package commands prints their
// usage and flags and exits 0; a bad flag is a usage error on one line.
func TestPackageCommandsHelp(t *testing.T) {
	c := newCLI(t)
	for _, cmd := range []string{"install", "update", "remove", "list"} {
		out, errs, code := c.run(cmd, "--help")
		if code != 0 || !strings.HasPrefix(out, "Usage: pi "+cmd) || strings.Contains(out+errs, `\n`) || errs != "" {
			t.Errorf("pi %s --help: exit %d\nstdout: %s\nstderr: %s", cmd, code, out, errs)
		}
		_, errs, code = c.run(cmd, "--bogus")
		if code != exitUsage || strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.Contains(errs, "usage: pi "+cmd) {
			t.Errorf("pi %s --bogus: exit %d, stderr %q", cmd, code, errs)
		}
	}
}

// TestOfflineInstallAndUpdate: with PI_OFFLINE set, pi install and pi
// update refuse sources that would be fetched from the network, saying
// why, before running git or npm; a local directory still installs.
func TestOfflineInstallAndUpdate(t *testing.T) {
	c := newCLI(t)
	c.env = map[string]string{"PI_OFFLINE": "1"}
	for _, src := range []string{"npm:left-pad", "git:github.com/example/pi-tools", "file:///nowhere/repo"} {
		_, errs, code := c.run("install", src)
		if code != 1 || !strings.Contains(errs, "PI_OFFLINE is set") {
			t.Errorf("install %s offline: exit %d, %s", src, code, errs)
		}
	}
	writeFiles(t, c.agentDir, map[string]string{"pi-packages.json": `{"packages":[{"name":"x","source":"npm:x","kind":"npm","sha256":"00","dir":"/nowhere","installed":"2026-01-01T00:00:00Z"}]}`})
	if _, errs, code := c.run("update"); code != 1 || !strings.Contains(errs, "PI_OFFLINE is set") {
		t.Errorf("update offline: exit %d, %s", code, errs)
	}
	pkg, _ := extPackage(t, "team-section", nil)
	if out, errs, code := c.run("install", pkg); code != 0 {
		t.Errorf("a local install offline: exit %d\n%s%s", code, out, errs)
	}
}
