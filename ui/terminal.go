package ui

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/piwasm/pi/core/agent"
	"github.com/piwasm/pi/core/prompt"
	"github.com/piwasm/pi/core/tool"
	"github.com/piwasm/pi/ui/termcaps"
)

// termState is what the session learns about its terminal while it runs.
type termState struct {
	// statusOK: the terminal answered the OSC 7501 support query.
	statusOK bool
	// runEnd is how the last run ended, for the program status: "" (none
	// yet, or aborted: idle), "done" or "error"; runErr is the error's
	// first line.
	runEnd, runErr string
	// ticking: the progress keep-alive is scheduled.
	ticking bool
}

// progressTickMsg repeats the progress indicator while the agent works.
type progressTickMsg struct{}

// progressEvery is how often the indicator is sent again: terminals drop
// one that is not renewed (Ghostty after 15 s), and the established harness
// renews it every second.
const progressEvery = time.Second

// picture is an image to draw inline below a transcript block.
type picture struct{ data, mime string }

// terminalMsg handles the messages about the terminal itself.
func (m *Model) terminalMsg(msg tea.Msg) (tea.Cmd, bool) {
	switch msg.(type) {
	case tea.ProgramStatusSupportMsg:
		m.tstate.statusOK = true
		return nil, true
	case progressTickMsg:
		m.tstate.ticking = false
		if !m.progressing() {
			return nil, true
		}
		return tea.Batch(tea.Raw(ansi.SetIndeterminateProgressBar), m.progressTick()), true
	}
	return nil, false
}

// progressing says whether the progress indicator shows.
func (m *Model) progressing() bool {
	return m.host.Terminal.Progress && (m.working || m.compacting) && !m.quitting
}

// progressTick schedules the keep-alive unless it is already.
func (m *Model) progressTick() tea.Cmd {
	if m.tstate.ticking || !m.host.Terminal.Progress {
		return nil
	}
	m.tstate.ticking = true
	return tea.Tick(progressEvery, func(time.Time) tea.Msg { return progressTickMsg{} })
}

// terminalInit asks the terminal whether it takes program status reports
// (unless PI_PROGRAM_STATUS decided).
func (m *Model) terminalInit() tea.Cmd {
	if m.host.Terminal.ProgramStatus == termcaps.StatusAsk {
		return tea.RequestProgramStatusSupport
	}
	return nil
}

// runEvent follows a run for the program status and starts the progress
// keep-alive.
func (m *Model) runEvent(e agent.Event) tea.Cmd {
	switch e.Type {
	case agent.CompactionStart:
		return m.progressTick()
	case agent.AgentStart:
		m.tstate.runEnd, m.tstate.runErr = "", ""
		return m.progressTick()
	case agent.MessageEnd:
		if e.Message != nil && e.Message.Role == "assistant" && e.Message.StopReason == "error" {
			m.tstate.runErr = firstLine(e.Message.ErrorMessage)
		}
	case agent.AgentSettled:
		switch {
		case e.Aborted:
			m.tstate.runEnd = ""
		case m.tstate.runErr != "":
			m.tstate.runEnd = "error"
		default:
			m.tstate.runEnd = "done"
		}
	}
	return nil
}

// decorate sets what the view tells the terminal beside its content:
// OSC 9;4 progress while the agent works, the OSC 7501 program status, and
// the hardware cursor in the editor.
func (m *Model) decorate(v *tea.View, content string) {
	t := m.host.Terminal
	busy := m.working || m.compacting
	if m.progressing() {
		v.ProgressBar = tea.NewProgressBar(tea.ProgressBarIndeterminate, 0)
	}
	if t.ProgramStatus == termcaps.StatusAlways || t.ProgramStatus == termcaps.StatusAsk && m.tstate.statusOK {
		v.ProgramStatus = m.programStatus(busy)
	}
	if t.HardwareCursor && m.dialog == nil && m.input == nil && m.picker == nil {
		if c := m.editor.Cursor(); c != nil {
			// The editor is followed by the footer at the bottom.
			c.X += m.editorPad()
			c.Y += lipgloss.Height(content) - lipgloss.Height(m.editorView()) - lipgloss.Height(m.footer())
			v.Cursor = c
		}
	}
}

// programStatus is the report for the terminal: never the conversation's
// text, only the state and an error's first line.
func (m *Model) programStatus(busy bool) *tea.ProgramStatus {
	st := &tea.ProgramStatus{App: "pi", State: tea.ProgramStateIdle}
	switch {
	case m.dialog != nil:
		st.State, st.Kind = tea.ProgramStateBlocked, tea.ProgramStatusKindQuestion
		if m.dialog.owner == nil {
			st.Kind = tea.ProgramStatusKindPermission
		}
	case busy:
		st.State = tea.ProgramStateWorking
	case m.tstate.runEnd == "done":
		st.State = tea.ProgramStateDone
	case m.tstate.runEnd == "error":
		st.State, st.Message = tea.ProgramStateError, m.tstate.runErr
	}
	return st
}

// forTerminal adapts a rendered block to the terminal: OSC 8 links only
// where it shows them.
func (m *Model) forTerminal(s string) string {
	if !m.host.Terminal.Hyperlinks {
		return termcaps.StripHyperlinks(s)
	}
	return s
}

// withPictures draws a block followed by its images, inline where the
// terminal has an image protocol and terminal.showImages allows it. The
// full-screen view goes through Bubble Tea's cell buffer, which keeps no
// image sequences: there the text the block already has stands for them.
func (m *Model) withPictures(draw func(int, bool) string, pics []picture) func(int, bool) string {
	t := m.host.Terminal
	if len(pics) == 0 || !t.ShowImages || t.Images == termcaps.None || m.host.FullScreen {
		return draw
	}
	return func(w int, x bool) string {
		out := draw(w, x)
		for _, p := range pics {
			data, err := base64.StdEncoding.DecodeString(p.data)
			if err != nil {
				continue
			}
			if lines, ok := termcaps.Image(t.Images, data, w, t.ImageWidthCells); ok {
				out += "\n\n" + strings.Join(lines, "\n")
			}
		}
		return out
	}
}

// setTerminal applies a terminal setting /settings changed: at once
// where the session can (images and their protocol, links, progress, the
// cursor), at the next start where the renderer fixed it when it started
// (the colour profile) or detection decides ("auto"). ok is false for
// other keys.
func (m *Model) setTerminal(name, value string) (note string, ok bool) {
	on := value == "true"
	t := &m.host.Terminal
	switch name {
	case "terminal.showImages":
		t.ShowImages = on
	case "terminal.showTerminalProgress":
		t.Progress = on
	case "terminal.hyperlinks":
		if value == `"auto"` {
			return "; pi detects it again at the next start", true
		}
		t.Hyperlinks = on
	case "showHardwareCursor":
		t.HardwareCursor = on
		m.editor.SetVirtualCursor(!on)
	case "terminal.images":
		switch value {
		case `"kitty"`:
			t.Images = termcaps.Kitty
		case `"iterm2"`:
			t.Images = termcaps.ITerm2
		case "false":
			t.Images = termcaps.None
		default:
			return "; pi detects it again at the next start", true
		}
	case "terminal.trueColor", "terminal.imageWidthCells", "terminal.clearOnShrink":
		return "; it takes effect at the next start", true
	default:
		return "", false
	}
	return "", true
}

// fileLink is the file:// address a tool call's header links to: the path
// of a read, write, edit or ls, where the terminal shows links.
func (m *Model) fileLink(name string, args []byte) string {
	if !m.host.Terminal.Hyperlinks {
		return ""
	}
	switch name {
	case "read", "write", "edit", "ls":
	default:
		return ""
	}
	var a struct {
		Path string `json:"path"`
	}
	if json.Unmarshal(args, &a) != nil || a.Path == "" || strings.ContainsAny(a.Path, "\x00\x07\x1b") {
		return ""
	}
	return termcaps.FileURL(a.Path, m.host.Cwd)
}

func toolPictures(r *tool.Result) []picture {
	if r == nil {
		return nil
	}
	var out []picture
	for _, p := range r.Content {
		if p.Type == "image" && p.Data != "" {
			out = append(out, picture{p.Data, p.MimeType})
		}
	}
	return out
}

func messagePictures(c prompt.Content) []picture {
	var out []picture
	for _, b := range c.Blocks {
		if b.Type == "image" && b.Data != "" {
			out = append(out, picture{b.Data, b.MimeType})
		}
	}
	return out
}
