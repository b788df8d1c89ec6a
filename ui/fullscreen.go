package ui

import (
	"os"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// Full-screen mode (--fullscreen, --tui-mode fullscreen, tuiMode): the
// transcript scrolls inside the window, with the mouse wheel
// (fullscreenWheelScrollLines) and pgup/pgdown, beside a scrollbar
// (fullscreenScrollbar); leaving it prints the transcript or how to resume
// the session (fullscreenExitOutput).

// scrollbarShows is how long an "auto" scrollbar stays after scrolling.
const scrollbarShows = time.Second

// wheelBurst is the gap between wheel steps that counts as one fast spin
// (fullscreenWheelScrollLines "auto").
const wheelBurst = 40 * time.Millisecond

// wheel scrolls the transcript by one wheel step: fullscreenWheelScrollLines
// lines, or with "auto" one line that grows by a line per step of a fast
// spin up to 6 (one line at a time in a local macOS terminal, which
// accelerates by itself); alt moves five times as far.
func (m *Model) wheel(msg tea.MouseWheelMsg) tea.Cmd {
	if !m.host.FullScreen {
		return nil
	}
	now := time.Now()
	step := m.disp.WheelLines
	if step <= 0 {
		switch {
		case localMac():
			step = 1
		case now.Sub(m.wheelAt) < wheelBurst:
			step = min(m.wheelStep+1, 6)
		default:
			step = 1
		}
	}
	m.wheelAt, m.wheelStep = now, step
	if msg.Mod&tea.ModAlt != 0 {
		step *= 5
	}
	switch msg.Button {
	case tea.MouseWheelUp:
		m.scroll += step
	case tea.MouseWheelDown:
		m.scroll = max(0, m.scroll-step)
	default:
		return nil
	}
	return m.scrolled()
}

// scrolled shows an "auto" scrollbar for a moment after the transcript
// moved.
func (m *Model) scrolled() tea.Cmd {
	if !m.host.FullScreen || m.disp.Scrollbar != "auto" {
		return nil
	}
	m.barUntil = time.Now().Add(scrollbarShows)
	return tea.Tick(scrollbarShows, func(time.Time) tea.Msg { return redrawMsg{} })
}

// localMac: a macOS terminal not reached over SSH.
func localMac() bool {
	return os.Getenv("TERM_PROGRAM") != "" && (os.Getenv("TERM_PROGRAM") == "Apple_Terminal" || os.Getenv("TERM_PROGRAM") == "iTerm.app") &&
		os.Getenv("SSH_CONNECTION") == "" && os.Getenv("SSH_TTY") == ""
}

// scrollbar says whether the bar shows now.
func (m *Model) scrollbar() bool {
	switch m.disp.Scrollbar {
	case "always":
		return m.width > 1
	case "auto":
		return m.width > 1 && time.Now().Before(m.barUntil)
	}
	return false
}

// screen fits the transcript's tail, the live part and the bottom into
// the window. Only the blocks that can show are joined, unless the
// scrollbar needs the transcript's whole height.
func (m *Model) screen(live, bottom string) string {
	room := max(0, m.height-lipgloss.Height(bottom))
	bar := m.scrollbar()
	width := m.width
	if m.disp.Scrollbar == "always" && bar {
		width-- // the bar has a column of its own
	}
	var lines []string
	if live != "" {
		lines = strings.Split(live, "\n")
	}
	need := room + m.scroll
	i := len(m.blocks) - 1
	for ; i >= 0 && (bar || len(lines) < need); i-- {
		bl := strings.Split(m.blocks[i].view(width, m.expanded)+"\n", "\n")
		lines = append(bl, lines...)
	}
	if i < 0 {
		// The whole transcript is here: scrolling stops at its top.
		m.scroll = min(m.scroll, max(0, len(lines)-room))
	}
	end := max(0, len(lines)-m.scroll)
	start := max(0, end-room)
	view := append([]string(nil), lines[start:end]...)
	for len(view) < room {
		view = append([]string{""}, view...)
	}
	if bar && room > 0 {
		m.drawScrollbar(view, start, len(lines))
	}
	return strings.Join(view, "\n") + "\n" + bottom
}

// drawScrollbar puts the bar in the last column of view, which shows
// lines [top, top+len(view)) of total.
func (m *Model) drawScrollbar(view []string, top, total int) {
	room := len(view)
	size, pos := room, 0
	if total > room {
		size = max(1, room*room/total)
		pos = min(room-size, top*room/total)
		if top+room >= total {
			pos = room - size
		}
	}
	for r, l := range view {
		cell := m.st.Dim.Render("│")
		if r >= pos && r < pos+size {
			cell = m.st.Accent.Render("┃")
		}
		l = ansi.Truncate(l, m.width-1, "")
		if w := ansi.StringWidth(l); w < m.width-1 {
			l += strings.Repeat(" ", m.width-1-w)
		}
		view[r] = l + cell
	}
}

// exitOutput is what full-screen mode leaves in the terminal when the
// session ends (fullscreenExitOutput): the transcript, as inline mode
// would have left it, then how to resume the session; "resume-hint" only
// the latter. Inline mode leaves nothing more: its transcript is in the
// scrollback already.
func (m *Model) exitOutput() string {
	if !m.host.FullScreen {
		return ""
	}
	var b strings.Builder
	if m.disp.ExitOutput != "resume-hint" {
		for _, bl := range m.blocks {
			b.WriteString(bl.view(m.width, m.expanded))
			b.WriteString("\n\n")
		}
	}
	if m.host.ResumeCommand != nil {
		if cmd := m.host.ResumeCommand(); cmd != "" {
			b.WriteString(m.st.Dim.Render("To resume this session:") + "\n" + cmd + "\n")
		}
	}
	return b.String()
}
