//go:build linux

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/piwasm/pi/core/sandbox"
	"github.com/piwasm/pi/internal/scripted"
)

// TestConfinedCommandCannotChmodOutside is issue 19's "a private key made
// 0644": through pi -p, a command chmods a key in the home directory and
// touches it; Landlock has no right for that, the read-only mounts outside
// the writable roots refuse it.
func TestConfinedCommandCannotChmodOutside(t *testing.T) {
	p, _ := sandbox.Build(sandbox.Inputs{Cwd: t.TempDir(), Tmp: os.TempDir()})
	if p == nil || !p.Enforced() || !p.Enforcement().MountNS {
		t.Skip("no confinement with a mount namespace here")
	}
	c := newCLI(t)
	// The temp dir is a writable root: keep it apart from the home.
	t.Setenv("TMPDIR", filepath.Join(c.home, "tmp"))
	key := filepath.Join(c.home, ".config", "svc", "id_x")
	writeFiles(t, filepath.Dir(key), map[string]string{"id_x": "secret"})
	if err := os.Chmod(key, 0o600); err != nil {
		t.Fatal(err)
	}
	args, _ := json.Marshal(map[string]any{"command": "chmod 644 ~/.config/svc/id_x; chmod 644 " + key + "; chmod 755 ~/.config"})
	scriptedModel(t, c, "openai-completions", []scripted.Reply{{Calls: []scripted.Call{{ID: "c", Name: "bash", Args: args}}}, {Text: "done"}})
	proj := filepath.Join(c.home, "proj")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", c.home)
	out, errs, code := c.run("-p", "--cwd", proj, "loosen the key")
	if code != 0 || out != "done\n" {
		t.Fatalf("exit %d stdout %q\nstderr: %s", code, out, errs)
	}
	if fi, err := os.Stat(key); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the key's mode is now %v (%v)", fi.Mode().Perm(), err)
	}
	if !resultOf(t, sessionMessages(t, c.agentDir), "c").Failed() {
		t.Error("the chmod calls reported success")
	}
}
