//go:build unix

package main

import (
	"strings"
	"testing"
)

// A hook that fails while the interactive session is on screen is told as
// a notice in the transcript (escaped), not written to stderr over the
// drawn screen.
func TestHookWarningsAreNoticesInTheUI(t *testing.T) {
	c := newCLI(t)
	proj := t.TempDir()
	scriptedModel(t, c, "openai-completions", nil)
	ext := unrulyPackage(t, t.TempDir(), "unruly", "name: unruly\nabi: 1\nhooks: [session_start]\n")
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
