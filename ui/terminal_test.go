package ui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/piwasm/pi/core/agent"
	"github.com/piwasm/pi/core/tool"
	"github.com/piwasm/pi/ui/termcaps"
)

// msgsOf runs cmd and the commands it batches, returning their messages'
// types.
func msgsOf(cmd tea.Cmd) []string {
	var out []string
	eachMsg(cmd, func(msg tea.Msg) { out = append(out, fmt.Sprintf("%T", msg)) })
	return out
}

func eachMsg(cmd tea.Cmd, f func(tea.Msg)) {
	if cmd == nil {
		return
	}
	msg := cmd()
	if b, ok := msg.(tea.BatchMsg); ok {
		for _, c := range b {
			eachMsg(c, f)
		}
		return
	}
	f(msg)
}

// /copy writes the system clipboard and sends OSC 52 too only in a remote
// session (or PI_CLIPBOARD_OSC52=1); without a system clipboard OSC 52 is
// the way.
func TestCopyOSC52(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name      string
		clipboard func(string) error
		remote    bool
		osc52     bool
	}{
		{"local", func(string) error { return nil }, false, false},
		{"remote", func(string) error { return nil }, true, true},
		{"no clipboard", func(string) error { return fmt.Errorf("no display") }, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var copied string
			h := Host{Runtime: newTestRuntime(t, dir, 1), Cwd: dir, Terminal: termcaps.Terminal{ClipboardOSC52: c.remote}}
			h.Clipboard = func(s string) error { copied = s; return c.clipboard(s) }
			m := fullScreen(t, h)
			got := strings.Join(msgsOf(m.cmdCopy("")), " ")
			if sent := strings.Contains(got, "setClipboardMsg"); sent != c.osc52 {
				t.Errorf("OSC 52 sent: %v, want %v (%s)", sent, c.osc52, got)
			}
			if !strings.Contains(copied, "Answer 0") {
				t.Errorf("the system clipboard got %q", copied)
			}
		})
	}
}

// showHardwareCursor: the editor's cursor is the terminal's, placed in
// the editor's line; by default it is drawn and the terminal's hidden.
func TestHardwareCursor(t *testing.T) {
	dir := t.TempDir()
	m := New(Host{Runtime: newTestRuntime(t, dir, 0), Cwd: dir})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	if v := m.View(); v.Cursor != nil {
		t.Errorf("the terminal's cursor is shown by default: %+v", v.Cursor)
	}
	m = New(Host{Runtime: newTestRuntime(t, dir, 0), Cwd: dir, Terminal: termcaps.Terminal{HardwareCursor: true}})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	press(m, "h", "i")
	v := m.View()
	if v.Cursor == nil {
		t.Fatal("no terminal cursor with showHardwareCursor")
	}
	lines := strings.Split(ansi.Strip(v.Content), "\n")
	if v.Cursor.Y < 0 || v.Cursor.Y >= len(lines) || !strings.Contains(lines[v.Cursor.Y], "> hi") || v.Cursor.X != 4 {
		t.Errorf("the cursor is at %d,%d, not after \"> hi\":\n%s", v.Cursor.X, v.Cursor.Y, v.Content)
	}
}

// Progress (OSC 9;4) shows while the agent works when asked, and program
// status reports only once the terminal said it takes them.
func TestProgressAndProgramStatus(t *testing.T) {
	dir := t.TempDir()
	m := New(Host{Runtime: newTestRuntime(t, dir, 0), Cwd: dir, Terminal: termcaps.Terminal{Progress: true}})
	m.Update(eventsMsg{{Type: agent.AgentStart}})
	v := m.View()
	if v.ProgressBar == nil || v.ProgressBar.State != tea.ProgressBarIndeterminate {
		t.Errorf("no indeterminate progress while working: %+v", v.ProgressBar)
	}
	if v.ProgramStatus != nil {
		t.Errorf("a status report before the terminal said it takes them")
	}
	// The indicator is sent again every second while the run goes on.
	// (The batch's second command is the next tick, not waited for here.)
	_, cmd := m.Update(progressTickMsg{})
	b, _ := cmd().(tea.BatchMsg)
	if len(b) != 2 {
		t.Fatalf("the keep-alive is not the sequence and the next tick: %d commands", len(b))
	}
	if r, ok := b[0]().(tea.RawMsg); !ok || fmt.Sprint(r.Msg) != "\x1b]9;4;3\x07" {
		t.Errorf("the keep-alive sent %#v", b[0]())
	}
	m.Update(tea.ProgramStatusSupportMsg{})
	if v := m.View(); v.ProgramStatus == nil || v.ProgramStatus.State != tea.ProgramStateWorking {
		t.Errorf("status while working: %+v", v.ProgramStatus)
	}
	m.Update(eventsMsg{{Type: agent.AgentSettled}})
	v = m.View()
	if v.ProgressBar != nil {
		t.Errorf("progress left after the run")
	}
	if _, cmd := m.Update(progressTickMsg{}); cmd != nil {
		t.Errorf("the keep-alive goes on after the run")
	}
	if v.ProgramStatus == nil || v.ProgramStatus.State != tea.ProgramStateDone {
		t.Errorf("status after the run: %+v", v.ProgramStatus)
	}
	if m.terminalInit() == nil {
		t.Errorf("the terminal is not asked about program status")
	}
	m.host.Terminal.ProgramStatus = termcaps.StatusNever
	if m.terminalInit() != nil {
		t.Errorf("PI_PROGRAM_STATUS=0 still asks")
	}
}

// Images go inline after a tool's block where the terminal has a
// protocol, and not in the full-screen view or with showImages off.
func TestToolImagesInline(t *testing.T) {
	dir := t.TempDir()
	// A 1×1 PNG.
	const dot = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
	res := &tool.Result{Content: []tool.Part{{Type: "text", Text: "Image dot.png attached."}, {Type: "image", Data: dot, MimeType: "image/png"}}}
	for _, c := range []struct {
		name string
		term termcaps.Terminal
		full bool
		want bool
	}{
		{"iterm2", termcaps.Terminal{Caps: termcaps.Caps{Images: termcaps.ITerm2}, ShowImages: true, ImageWidthCells: 60}, false, true},
		{"showImages off", termcaps.Terminal{Caps: termcaps.Caps{Images: termcaps.ITerm2}, ImageWidthCells: 60}, false, false},
		{"no protocol", termcaps.Terminal{ShowImages: true, ImageWidthCells: 60}, false, false},
		{"full screen", termcaps.Terminal{Caps: termcaps.Caps{Images: termcaps.ITerm2}, ShowImages: true, ImageWidthCells: 60}, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := New(Host{Runtime: newTestRuntime(t, dir, 0), Cwd: dir, Terminal: c.term, FullScreen: c.full})
			_, cmd := m.Update(eventsMsg{{Type: agent.ToolExecutionStart, ToolCallID: "r", ToolName: "read"}, {Type: agent.ToolExecutionEnd, ToolCallID: "r", ToolName: "read", Result: res}})
			// Inline, the block is printed (and let go); full screen keeps it.
			var out string
			eachMsg(cmd, func(msg tea.Msg) { out += fmt.Sprintf("%+v", msg) })
			if c.full {
				out = m.blocks[len(m.blocks)-1].view(80, false)
			}
			if got := strings.Contains(out, "\x1b]1337;File=inline=1;"); got != c.want {
				t.Errorf("image drawn: %v, want %v: %q", got, c.want, out)
			}
			if !strings.Contains(out, "Image dot.png attached.") {
				t.Errorf("the text is gone: %q", out)
			}
		})
	}
}

// /settings changes the terminal's session-wide keys at once: here the
// hardware cursor appears without a restart; the colour profile waits for
// the next start and says so.
func TestTerminalSettingsApplyAtOnce(t *testing.T) {
	dir := t.TempDir()
	var saved []string
	m := fullScreen(t, Host{Runtime: newTestRuntime(t, dir, 0), Cwd: dir,
		Settings: func() ([]Setting, error) {
			return []Setting{
				{Name: "showHardwareCursor", Value: "false", Options: []string{"true", "false"}, File: "settings.json"},
				{Name: "terminal.trueColor", Value: `"auto"`, Options: []string{"true", "false"}, File: "settings.json"},
			}, nil
		},
		SetSetting: func(name, value string) (string, error) {
			saved = append(saved, name+"="+value)
			return "settings.json", nil
		},
	})
	if m.View().Cursor != nil {
		t.Fatal("a terminal cursor before the setting")
	}
	press(m, "/settings", "enter", "enter", "1")
	if len(saved) != 1 || saved[0] != "showHardwareCursor=true" {
		t.Fatalf("saved %v", saved)
	}
	if m.View().Cursor == nil {
		t.Errorf("showHardwareCursor true in /settings did not show the terminal's cursor")
	}
	press(m, "/settings", "enter", "down", "enter", "1")
	if v := plainView(m); !strings.Contains(v, "terminal.trueColor = true") || !strings.Contains(v, "next start") {
		t.Errorf("the colour profile's change is not explained:\n%s", v)
	}
}
