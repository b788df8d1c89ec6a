//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/piwasm/pi/internal/scripted"
)

// A hook that fails while the interactive session is on screen is told as
// a notice in the transcript (escaped), not written to stderr over the
// drawn screen.
func TestHookWarningsAreNoticesInTheUI(t *testing.T) {
	c := newCLI(t)
	proj := t.TempDir()
	scriptedModel(t, c, "openai-completions", nil)
	ext := unrulyPackage(t, fixedLengthDir(t, 52), "unruly", "name: unruly\nabi: 1\nhooks: [session_start]\n")
	tm := startTerminal(t, c, proj, "--cwd", proj, "--no-extensions", "-e", ext)
	tm.waitFor("Ask pi")
	s := tm.waitFor("⚠ extension unruly failed in session_start")
	if strings.Contains(s, "pi: warning") || strings.Count(s, "unruly refuses") != 1 {
		t.Fatalf("the warning went to stderr, or is told twice:\n%s", s)
	}
	if !strings.Contains(s, `\x1b[2Kquietly`) {
		t.Fatalf("the guest's text is not shown escaped:\n%s", s)
	}
	// /new starts another session: its session_start fails again and is
	// told again.
	tm.typeLine("/new")
	tm.waitFor("new session:")
	if n := strings.Count(tm.screen(), "failed in session_start"); n < 2 {
		t.Fatalf("the second failure was not told (%d notices):\n%s", n, tm.screen())
	}
}

// As a user would: the extension's flag on the command line reaches the
// guest; an extension command's argument is completed by its guest as the
// person types (/preset offers the presets with their descriptions, tab
// takes one); a shortcut runs the extension's command, and /hotkeys lists
// it.
func TestExtensionCompletionAndShortcutInTheUI(t *testing.T) {
	c := newCLI(t)
	proj := t.TempDir()
	srv := scriptedModel(t, c, "openai-completions", []scripted.Reply{{Text: "Reviewed."}, {Text: "Planned."}})
	// The real binary takes the extension's flag from the command line.
	tm := startTerminal(t, c, proj, "--cwd", proj, "--no-extensions", "-e", examplePlugin(t, "preset"), "--preset", "review")
	tm.waitFor("Ask pi")
	tm.typeLine("look")
	tm.waitFor("Reviewed.")
	if reqs := srv.Requests(); len(reqs) != 1 || !strings.Contains(string(reqs[0]), "Preset review: Review the change") {
		t.Fatalf("--preset review did not reach the guest: %s", reqs)
	}
	tm.press("/preset r")
	tm.waitFor("Review the change as a careful colleague")
	tm.press("\t")
	tm.press("\r")
	tm.waitFor("[preset] preset review")

	// ctrl+x: the next preset after review (in name order) is implement…
	// then plan.
	tm.press("\x18")
	tm.waitFor("[preset] preset implement")
	tm.press("\x18")
	tm.waitFor("[preset] preset plan")
	tm.typeLine("/hotkeys")
	tm.waitFor("Keys of extensions")
	tm.waitFor("next preset [preset]")

	tm.typeLine("go")
	tm.waitFor("Planned.")
	reqs := srv.Requests()
	if len(reqs) != 2 || !strings.Contains(string(reqs[1]), "Preset plan: Plan only") {
		t.Fatalf("the preset chosen with the shortcut did not reach the model: %s", reqs)
	}
}

// A completer that never returns does not hold the editor: keys typed
// after it are shown at once and the session answers commands; the
// question is given up after its deadline. A shortcut on one of pi's keys
// is refused with a notice naming the manifest, and the key keeps pi's
// meaning.
func TestHostileCompletionAndShortcut(t *testing.T) {
	c := newCLI(t)
	proj := t.TempDir()
	scriptedModel(t, c, "openai-completions", nil)
	ext := unrulyPackage(t, fixedLengthDir(t, 52), "unruly", "name: unruly\nabi: 1\nhooks: [command]\ncommands:\n  - name: spin\n    completions: true\nshortcuts:\n  - key: ctrl+c\n    command: spin\n  - key: alt+s\n    command: spin\n    args: by key\n")
	tm := startTerminal(t, c, proj, "--cwd", proj, "--no-extensions", "-e", ext)
	tm.waitFor("Ask pi")
	// (The notice wraps at the terminal's width; the manifest's path has
	// the same length in every run, so the lines break at the same words.)
	tm.waitFor("binds ctrl+c")
	tm.waitFor("meaning stays")
	tm.waitFor(filepath.Join(filepath.Base(ext), "extension.yaml"))
	tm.press("/spin abc")
	tm.press("def")
	// Each key after "/spin " asks the guest; were the editor to wait for
	// it, six keys would take six deadlines (and the first the guest's
	// start) before the line shows.
	start := time.Now()
	tm.waitFor("/spin abcdef")
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("the editor took %s to show six keys: it waited for the completer", d)
	}
	// ctrl+c keeps pi's meaning: it clears the editor.
	tm.press("\x03")
	deadline := time.Now().Add(30 * time.Second)
	for strings.Contains(tm.screen(), "/spin abcdef") {
		if time.Now().After(deadline) {
			t.Fatalf("ctrl+c did not clear the editor:\n%s", tm.screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The guest's instance was stopped at the deadline: its command runs.
	tm.press("\x1bs") // alt+s
	tm.waitFor("spun by key")
}

// RPC's get_commands lists the extension's command with its description
// and argument hint.
func TestExtensionCommandsOverRPC(t *testing.T) {
	c := newCLI(t)
	scriptedModel(t, c, "openai-completions", nil)
	rc := startRPC(t, c, "--no-session", "--cwd", t.TempDir(), "-e", examplePlugin(t, "preset"))
	rc.send(`{"id":"gc","type":"get_commands"}`)
	cmds := rc.response("gc")["data"].(map[string]any)["commands"].([]any)
	for _, x := range cmds {
		m := x.(map[string]any)
		if m["name"] == "preset" && m["source"] == "extension" && m["argumentHint"] == "[name|next]" && strings.HasPrefix(m["description"].(string), "Switch preset") {
			return
		}
	}
	t.Fatalf("preset missing from get_commands: %v", cmds)
}

// fixedLengthDir returns a new directory whose path is n bytes long (or
// longer, when the temporary directory's own path is): t.TempDir's name
// holds a random number of varying length, and a notice that shows the
// path wraps at a different word with each.
func fixedLengthDir(t *testing.T, n int) string {
	t.Helper()
	base := t.TempDir()
	pad := n - len(base) - 1
	if pad < 1 {
		pad = 1
	}
	dir := filepath.Join(base, strings.Repeat("p", pad))
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}
