//go:build unix

package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/creack/pty"
	"github.com/piwasm/pi/internal/scripted"
)

// visible is the screen alone, without the scrollback.
func (tm *terminal) visible() string {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return tm.emu.String()
}

// resize changes the window's size as a person dragging it would.
func (tm *terminal) resize(cols, rows int) {
	tm.t.Helper()
	tm.mu.Lock()
	tm.emu.Resize(cols, rows)
	tm.mu.Unlock()
	if err := pty.Setsize(tm.pty, &pty.Winsize{Rows: uint16(rows), Cols: uint16(cols)}); err != nil {
		tm.t.Fatal(err)
	}
}

// failingCommand is the brief's command: 5000 lines, the error at the
// end, exit status 2.
const failingCommand = "seq 1 5000; echo ERROR-AT-END; exit 2"

// TestFailingCommandOutputStaysBounded: a command that prints 5000 lines
// and fails shows its tail (the error and the exit status) in a few
// lines, leaving the conversation's first prompt on the screen; ctrl+o
// prints the transcript again expanded, then collapsed, each line once.
func TestFailingCommandOutputStaysBounded(t *testing.T) {
	c := newCLI(t)
	proj := t.TempDir()
	scriptedModel(t, c, "openai-completions", []scripted.Reply{
		{Text: "Running it.", Calls: []scripted.Call{{ID: "c1", Name: "bash", Args: json.RawMessage(`{"command":"` + failingCommand + `"}`)}}},
		{Text: "It failed at the end."},
	})
	tm := startTerminal(t, c, proj, "--cwd", proj)
	tm.waitFor("Ask pi")
	tm.typeLine("first prompt here")
	tm.waitFor("It failed at the end.")
	screen := tm.visible()
	for _, want := range []string{"› first prompt here", "✗ bash " + failingCommand, "ERROR-AT-END", "Command exited with code 2", "earlier lines, ctrl+o to expand"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the screen does not show %q:\n%s", want, screen)
		}
	}
	if n := strings.Count(tm.screen(), "\n4990\n"); n != 0 {
		t.Errorf("collapsed output printed line 4990 %d time(s)", n)
	}

	// ctrl+o: the same transcript, the command's output in full.
	tm.press("\x0f")
	tm.waitFor("tool output expanded")
	all := tm.waitFor("\n  │ 3002\n")
	for _, once := range []string{"› first prompt here", "\n  │ 4990\n", "It failed at the end."} {
		if n := strings.Count(all, once); n != 1 {
			t.Errorf("after ctrl+o %q shows %d times, want once:\n%s", once, n, all)
		}
	}
	// ctrl+o again: collapsed, and nothing twice.
	tm.press("\x0f")
	tm.waitFor("tool output collapsed")
	all = tm.screen()
	for _, once := range []string{"› first prompt here", "│ ERROR-AT-END", "It failed at the end."} {
		if n := strings.Count(all, once); n != 1 {
			t.Errorf("after collapsing %q shows %d times, want once:\n%s", once, n, all)
		}
	}
	if strings.Contains(all, "\n  │ 4990\n") {
		t.Errorf("collapsing left the full output on screen")
	}

	// pi -c draws the same call: its header keeps the command, its
	// output the tail.
	tm.press("\x03")
	tm.press("\x03")
	if !tm.exited(30 * time.Second) {
		t.Fatalf("ctrl+c twice did not quit:\n%s", tm.screen())
	}
	tm = startTerminal(t, c, proj, "--cwd", proj, "-c")
	tm.waitFor("It failed at the end.")
	screen = tm.visible()
	for _, want := range []string{"› first prompt here", "✗ bash " + failingCommand, "│ ERROR-AT-END", "Command exited with code 2", "earlier lines, ctrl+o to expand"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the resumed session does not show %q:\n%s", want, screen)
		}
	}
}

// trailingBlank is a line of pi's output that ends in spaces, colour codes
// or not.
var trailingBlank = regexp.MustCompile(`[^ \n]  +\n`)

// TestTranscriptLinesAreNotPadded: with colours on, no printed line ends
// in spaces (a padded line wraps in two when the window narrows, and a
// copy carries the spaces), and narrowing the window leaves one copy of
// each line.
func TestTranscriptLinesAreNotPadded(t *testing.T) {
	c := newCLI(t)
	proj := t.TempDir()
	scriptedModel(t, c, "openai-completions", []scripted.Reply{
		{Text: "## Plan\n\nA short **reply** with `code` in it.\n\n- one\n- two", Calls: []scripted.Call{{ID: "c1", Name: "bash", Args: json.RawMessage(`{"command":"echo hello"}`)}}},
		{Text: "Done with the plan."},
	})
	tm := startTerminalEnv(t, c, proj, []string{"NO_COLOR="}, "--cwd", proj)
	tm.waitFor("Ask pi")
	tm.typeLine("make a plan")
	tm.waitFor("Done with the plan.")
	tm.mu.Lock()
	raw := string(tm.raw)
	tm.mu.Unlock()
	// What pi printed, as text: colour codes and cursor moves dropped,
	// each carriage return or erase ending a line.
	text := ansi.Strip(strings.NewReplacer("\x1b[K", "\n", "\r", "\n").Replace(raw))
	for _, l := range trailingBlank.FindAllString(text, 5) {
		t.Errorf("a line ends in spaces: %q", l)
	}
	tm.resize(60, termRows)
	tm.typeLine("/session")
	all := tm.waitFor("sessions")
	for _, once := range []string{"› make a plan", "A short reply", "Done with the plan."} {
		if n := strings.Count(all, once); n != 1 {
			t.Errorf("after the resize %q shows %d times, want once:\n%s", once, n, all)
		}
	}
}
