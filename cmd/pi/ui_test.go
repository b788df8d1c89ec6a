//go:build unix

package main

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/vt"
	"github.com/creack/pty"
	"github.com/piwasm/pi/internal/scripted"
)

// terminal is pi running in a pseudo-terminal, its screen read through a
// terminal emulator: what a person would see.
type terminal struct {
	t   *testing.T
	pty *os.File
	// mu guards emu: the copy from the pty writes it while the test reads
	// the screen and the scrollback.
	mu  sync.Mutex
	emu *vt.Emulator
	cmd *exec.Cmd
	out chan struct{}
	// raw is every byte pi wrote, for sequences the emulator does not keep
	// (images, hyperlinks, progress); guarded by mu.
	raw []byte
}

const termCols, termRows = 100, 40

func startTerminal(t *testing.T, c *cli, dir string, args ...string) *terminal {
	t.Helper()
	return startTerminalEnv(t, c, dir, nil, args...)
}

// startTerminalEnv is startTerminal with more environment (later entries
// win).
func startTerminalEnv(t *testing.T, c *cli, dir string, env []string, args ...string) *terminal {
	t.Helper()
	return startTerminalExe(t, c, dir, os.Args[0], append([]string{"PI_TEST_AS_PI=1"}, env...), args...)
}

// startTerminalExe is startTerminalEnv with the program exe (a pi binary)
// instead of the test binary acting as pi.
func startTerminalExe(t *testing.T, c *cli, dir, exe string, env []string, args ...string) *terminal {
	t.Helper()
	cmd := exec.Command(exe, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "PI_CODING_AGENT_DIR="+c.agentDir, "HOME="+c.home, "TERM=xterm-256color", "NO_COLOR=1"), env...)
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: termRows, Cols: termCols})
	if err != nil {
		t.Fatal(err)
	}
	tm := &terminal{t: t, pty: f, emu: vt.NewEmulator(termCols, termRows), cmd: cmd, out: make(chan struct{})}
	go func() {
		buf := make([]byte, 32<<10)
		for {
			n, err := f.Read(buf)
			if n > 0 {
				tm.mu.Lock()
				tm.emu.Write(buf[:n])
				tm.raw = append(tm.raw, buf[:n]...)
				tm.mu.Unlock()
			}
			if err != nil {
				break
			}
		}
		close(tm.out)
	}()
	// The emulator answers the program's terminal queries.
	go io.Copy(f, tm.emu)
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		f.Close()
	})
	return tm
}

// screen is the visible screen plus the scrollback, as text.
func (tm *terminal) screen() string {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	var b strings.Builder
	if sb := tm.emu.Scrollback(); sb != nil {
		for _, l := range sb.Lines() {
			b.WriteString(strings.TrimRight(l.String(), " "))
			b.WriteByte('\n')
		}
	}
	for _, l := range strings.Split(tm.emu.String(), "\n") {
		b.WriteString(strings.TrimRight(l, " "))
		b.WriteByte('\n')
	}
	return b.String()
}

// waitFor waits until the screen shows want (generous deadline: the
// machine may be loaded). Text wraps at the screen's width, a long
// temporary directory's path anywhere, so white space does not count.
func (tm *terminal) waitFor(want string) string {
	tm.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	squeezed := squeeze(want)
	for {
		s := tm.screen()
		if strings.Contains(s, want) || strings.Contains(squeeze(s), squeezed) {
			return s
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("the screen never showed %q; it shows:\n%s", want, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// squeeze drops every run of white space.
func squeeze(s string) string { return strings.Join(strings.Fields(s), "") }

func (tm *terminal) press(keys string) {
	tm.t.Helper()
	if _, err := tm.pty.Write([]byte(keys)); err != nil {
		tm.t.Fatal(err)
	}
}

// typeLine types text then Enter, as a person would (in pieces, so the
// program sees keys rather than one paste).
func (tm *terminal) typeLine(text string) {
	tm.t.Helper()
	tm.press(text)
	time.Sleep(100 * time.Millisecond)
	tm.press("\r")
}

func (tm *terminal) exited(within time.Duration) bool {
	select {
	case <-tm.out:
		return true
	case <-time.After(within):
		return false
	}
}

func TestInteractiveSession(t *testing.T) {
	c := newCLI(t)
	proj := t.TempDir()
	writeFiles(t, proj, map[string]string{
		"AGENTS.md":                "Use tabs.",
		".pi/prompts/fixit.md":     "---\ndescription: fix the named thing\n---\nPlease fix $1 now.",
		".pi/skills/tidy/SKILL.md": "---\nname: tidy\ndescription: tidy the code\n---\nTidy everything.",
		"notes.txt":                "hello\n",
	})
	srv := scriptedModel(t, c, "openai-completions", []scripted.Reply{
		{Text: "I will look at **notes.txt** first.", Calls: []scripted.Call{{ID: "c1", Name: "bash", Args: json.RawMessage(`{"command":"sleep 3; cat notes.txt"}`)}}},
		{Text: "Done: the notes say hello, and I heard your steer."},
		{Calls: []scripted.Call{{ID: "c2", Name: "bash", Args: json.RawMessage(`{"command":"sleep 60"}`)}}},
		{Text: "Template received."},
		{Text: "Skill received."},
		{Text: "Reloaded context received."},
	})
	tm := startTerminal(t, c, proj, "--cwd", proj)

	// The trust question comes first.
	tm.waitFor("Trust this project?")
	tm.press("y")
	tm.waitFor("trusted " + proj)

	tm.typeLine("what do the notes say?")
	tm.waitFor("cat notes.txt")
	tm.typeLine("and mention the steer")
	s := tm.waitFor("I heard your steer")
	if !strings.Contains(s, "I will look at") || !strings.Contains(s, "hello") {
		t.Errorf("the reply or the tool output is missing:\n%s", s)
	}
	reqs := srv.Requests()
	if len(reqs) < 2 || !strings.Contains(string(reqs[1]), "and mention the steer") {
		t.Errorf("the steering message did not reach the second request")
	}

	// Esc aborts a long command; the session goes on.
	tm.typeLine("wait for a minute")
	tm.waitFor("sleep 60")
	time.Sleep(200 * time.Millisecond)
	tm.press("\x1b")
	tm.waitFor("aborted")

	// "/" completion: the template, then a skill.
	tm.press("/fix")
	tm.waitFor("fix the named thing")
	tm.press("\t")
	time.Sleep(100 * time.Millisecond)
	tm.typeLine("main.go")
	tm.waitFor("Template received.")
	if last := string(srv.Requests()[len(srv.Requests())-1]); !strings.Contains(last, "Please fix main.go now.") {
		t.Errorf("the template was not expanded: %s", last)
	}
	tm.press("/skill:ti")
	tm.waitFor("tidy the code")
	tm.press("\t")
	time.Sleep(100 * time.Millisecond)
	tm.press("\r")
	tm.waitFor("Skill received.")

	// /reload after editing AGENTS.md: the UI says what changed, and the
	// next request carries the new text.
	writeFiles(t, proj, map[string]string{"AGENTS.md": "Use spaces, never tabs."})
	tm.typeLine("/reload")
	tm.waitFor("section")
	tm.typeLine("go on")
	tm.waitFor("Reloaded context received.")
	if last := string(srv.Requests()[len(srv.Requests())-1]); !strings.Contains(last, "never tabs") {
		t.Errorf("the reloaded AGENTS.md is not in the next request")
	}

	tm.typeLine("/session")
	tm.waitFor(filepath.Join(c.agentDir, "sessions"))

	final := tm.screen()
	if os.Getenv("PI_UPDATE_CAPTURE") != "" {
		os.WriteFile(filepath.Join("..", "..", "docs", "ui-session.txt"), []byte(capture(final, proj, c.agentDir)), 0o644)
	}
	tm.press("\x03")
	tm.press("\x03")
	if !tm.exited(30 * time.Second) {
		t.Fatalf("ctrl+c twice did not quit:\n%s", tm.screen())
	}
	data, _ := os.ReadFile(filepath.Join(c.agentDir, "trust.json"))
	if !strings.Contains(string(data), proj) {
		t.Errorf("the trust answer was not remembered: %s", data)
	}
}

// capture makes a screen capture readable in the docs: temporary paths
// replaced by stable names.
func capture(s, proj, agentDir string) string {
	s = strings.ReplaceAll(s, agentDir, "~/.pi/agent")
	s = strings.ReplaceAll(s, proj, "~/demo")
	return strings.TrimRight(s, "\n") + "\n"
}

// TestInteractiveFollowUpAndCommands: full-screen mode, a follow-up queued
// with alt+enter while a tool runs, !cmd and !!cmd, the /resume picker and
// /quit.
func TestInteractiveFollowUpAndCommands(t *testing.T) {
	c := newCLI(t)
	proj := t.TempDir()
	srv := scriptedModel(t, c, "anthropic-messages", []scripted.Reply{
		{Calls: []scripted.Call{{ID: "c1", Name: "bash", Args: json.RawMessage(`{"command":"sleep 1; echo step"}`)}}},
		{Text: "First task done."},
		{Text: "Follow-up done."},
		{Text: "Saw the shell output."},
	})
	tm := startTerminal(t, c, proj, "--fullscreen", "--cwd", proj)
	tm.waitFor("Ask pi")
	tm.typeLine("start the task")
	tm.waitFor("sleep 1; echo step")
	tm.press("then summarize")
	time.Sleep(100 * time.Millisecond)
	tm.press("\x1b\r") // alt+enter
	tm.waitFor("Follow-up done.")
	reqs := srv.Requests()
	if len(reqs) != 3 || !strings.Contains(string(reqs[2]), "then summarize") || strings.Contains(string(reqs[1]), "then summarize") {
		t.Errorf("the follow-up did not wait for the end (%d requests)", len(reqs))
	}

	tm.typeLine("!echo from-shell")
	tm.waitFor("from-shell")
	tm.typeLine("!!echo not-for-the-model")
	tm.waitFor("not-for-the-model")
	tm.typeLine("what did the shell say?")
	tm.waitFor("Saw the shell output.")
	last := string(srv.Requests()[3])
	if !strings.Contains(last, "Ran `echo from-shell`") || strings.Contains(last, "not-for-the-model") {
		t.Errorf("!cmd / !!cmd context wrong: %s", last)
	}

	tm.typeLine("/resume")
	tm.waitFor("Resume Session (Current Folder)")
	time.Sleep(100 * time.Millisecond)
	tm.press("\x1b")
	// A lone ESC needs a pause before the next key, or the terminal
	// reads the two as alt+key.
	time.Sleep(300 * time.Millisecond)
	tm.typeLine("/quit")
	if !tm.exited(30 * time.Second) {
		t.Fatalf("/quit did not quit:\n%s", tm.screen())
	}
}
