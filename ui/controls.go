package ui

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/piwasm/pi/core/export"
	"github.com/piwasm/pi/internal/atomicfile"
)

// The model and thinking controls: /thinking and shift+tab, ctrl+p and
// shift+ctrl+p over the scoped models, /scoped-models, ctrl+t, and the
// commands that take the conversation elsewhere (/copy, /export, ctrl+g).

func (m *Model) cmdThinking(args string) tea.Cmd {
	r := m.rt.Route()
	levels := r.AvailableThinkingLevels()
	if args != "" {
		return m.setThinking(strings.ToLower(args))
	}
	d := &dialog{title: "Thinking level for " + r.Provider + "/" + r.ModelID + " (now " + r.ThinkingLevel() + ")"}
	for i, l := range levels {
		d.options = append(d.options, option{key: fmt.Sprint(i + 1), label: l})
		if l == r.ThinkingLevel() {
			d.sel = i
		}
	}
	d.choose = func(m *Model, i int) tea.Cmd {
		if i < 0 {
			return nil
		}
		return m.setThinking(levels[i])
	}
	m.dialog = d
	return nil
}

func (m *Model) setThinking(level string) tea.Cmd {
	r := m.rt.Route()
	ok := false
	for _, l := range r.AvailableThinkingLevels() {
		ok = ok || l == level
	}
	if !ok {
		m.addNotice(fmt.Sprintf("✗ %s/%s takes the thinking levels %s", r.Provider, r.ModelID, strings.Join(r.AvailableThinkingLevels(), ", ")))
		return m.flush()
	}
	r.Thinking = level
	if level == "off" {
		r.Thinking = ""
	}
	m.rt.SetRoute(r)
	m.notice = "thinking: " + level
	return nil
}

// cycleThinking moves to the next level the model takes (shift+tab).
func (m *Model) cycleThinking() tea.Cmd {
	r := m.rt.Route()
	levels := r.AvailableThinkingLevels()
	if len(levels) < 2 {
		m.notice = r.ModelID + " does not think: thinking stays off"
		return nil
	}
	cur := r.ThinkingLevel()
	next := levels[0]
	for i, l := range levels {
		if l == cur {
			next = levels[(i+1)%len(levels)]
		}
	}
	return m.setThinking(next)
}

// cycleModel moves through the scoped models (--models, enabledModels),
// or every configured model when none are scoped (ctrl+p, shift+ctrl+p).
func (m *Model) cycleModel(step int) tea.Cmd {
	list, err := m.cycleList()
	if err != nil || len(list) == 0 {
		m.notice = "no models to cycle through " + errText(err)
		return nil
	}
	r := m.rt.Route()
	cur := r.Provider + "/" + r.ModelID
	at := -1
	for i, s := range list {
		if s == cur {
			at = i
		}
	}
	if len(list) == 1 && at == 0 {
		m.notice = "only " + cur + " is in scope (/scoped-models)"
		return nil
	}
	next := list[((at+step)%len(list)+len(list))%len(list)]
	if at < 0 && step < 0 {
		next = list[len(list)-1]
	}
	if err := m.host.SetModel(next); err != nil {
		m.notice = "✗ " + err.Error()
		return nil
	}
	m.notice = "model: " + next + " · thinking " + m.rt.Route().ThinkingLevel()
	return nil
}

func (m *Model) cycleList() ([]string, error) {
	if m.scoped != nil {
		return m.scoped, nil
	}
	if m.host.ScopedModels != nil {
		if s, err := m.host.ScopedModels(); err != nil || len(s) > 0 {
			return s, err
		}
	}
	if m.host.Models == nil || m.host.SetModel == nil {
		return nil, fmt.Errorf("(no model list here)")
	}
	return m.host.Models()
}

// cmdScopedModels chooses the models ctrl+p cycles through, for this
// session: space toggles, enter keeps the choice.
func (m *Model) cmdScopedModels(string) tea.Cmd {
	if m.host.Models == nil || m.host.SetModel == nil {
		return m.unavailable("/scoped-models")
	}
	all, err := m.host.Models()
	if err != nil || len(all) == 0 {
		m.addNotice("no models configured " + errText(err))
		return m.flush()
	}
	in, _ := m.cycleList()
	on := map[string]bool{}
	if len(in) < len(all) {
		for _, s := range in {
			on[s] = true
		}
	}
	d := &dialog{title: "Models for ctrl+p (space toggles, enter keeps, esc cancels)", checked: make([]bool, len(all))}
	for i, s := range all {
		d.options = append(d.options, option{label: s})
		d.checked[i] = on[s]
	}
	d.done = func(m *Model, checked []bool) tea.Cmd {
		var scope []string
		for i, c := range checked {
			if c {
				scope = append(scope, all[i])
			}
		}
		m.scoped = scope
		if len(scope) == 0 {
			m.scoped = nil
			m.addNotice("ctrl+p cycles through every configured model")
		} else {
			m.addNotice("ctrl+p cycles through " + strings.Join(scope, ", "))
		}
		return m.flush()
	}
	m.dialog = d
	return nil
}

// lastReply is the text of the newest assistant message that has any.
func (m *Model) lastReply() string {
	msgs := m.rt.Messages()
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "assistant" {
			if t := strings.TrimSpace(msgs[i].Content.Text()); t != "" {
				return t
			}
		}
	}
	return ""
}

// cmdCopy puts the last reply on the clipboard: the system clipboard when
// the host has one, and OSC 52, which reaches the clipboard of the
// terminal pi is shown in, when there is no system clipboard or the
// session is remote (ssh, mosh, PI_CLIPBOARD_OSC52=1), as the established
// harness does.
func (m *Model) cmdCopy(string) tea.Cmd {
	text := m.lastReply()
	if text == "" {
		m.addNotice("nothing to copy yet: no reply in this session")
		return m.flush()
	}
	if m.host.Clipboard != nil {
		if err := m.host.Clipboard(text); err == nil {
			m.addNotice(fmt.Sprintf("copied the last reply (%d characters)", len([]rune(text))))
			if !m.host.Terminal.ClipboardOSC52 {
				return m.flush()
			}
			// A remote session's own clipboard is the client's: the
			// terminal carries the text there.
			return tea.Batch(m.flush(), tea.SetClipboard(text))
		}
	}
	m.addNotice(fmt.Sprintf("copied the last reply (%d characters) through the terminal (OSC 52)", len([]rune(text))))
	return tea.Batch(m.flush(), tea.SetClipboard(text))
}

// cmdExport writes the conversation: .md as Markdown, .jsonl as a copy of
// the session file (what /import reads), anything else as one HTML page.
func (m *Model) cmdExport(args string) tea.Cmd {
	st := m.rt.State()
	path := strings.TrimSpace(args)
	if path == "" {
		id := st.SessionID
		if id == "" {
			id = time.Now().Format("20060102-150405")
		}
		path = "pi-session-" + id + ".html"
	}
	if strings.HasPrefix(path, "~/") && m.host.Home != "" {
		path = filepath.Join(m.host.Home, path[2:])
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(m.host.Cwd, path)
	}
	var data []byte
	switch strings.ToLower(filepath.Ext(path)) {
	case ".jsonl":
		if st.SessionFile == "" {
			m.addNotice("✗ this session is not saved (--no-session): export it as .html or .md")
			return m.flush()
		}
		b, err := os.ReadFile(st.SessionFile)
		if err != nil {
			m.addNotice("✗ export: " + err.Error())
			return m.flush()
		}
		data = b
	case ".md", ".markdown":
		data = export.Markdown(m.exportMeta(), m.rt.Messages())
	default:
		data = export.HTML(m.exportMeta(), m.rt.Messages())
	}
	if err := atomicfile.Write(path, data, 0o644); err != nil {
		m.addNotice("✗ export: " + err.Error())
		return m.flush()
	}
	m.addNotice(fmt.Sprintf("exported %d messages to %s", len(m.rt.Messages()), path))
	return m.flush()
}

func (m *Model) exportMeta() export.Meta {
	st := m.rt.State()
	title := ""
	for _, msg := range m.rt.Messages() {
		if msg.Role == "user" {
			title = firstLine(msg.Content.Text())
			break
		}
	}
	return export.Meta{Title: truncateTo(title, 80), SessionID: st.SessionID, Cwd: m.host.Cwd, Model: st.Route.Provider + "/" + st.Route.ModelID, Palette: m.exportPalette()}
}

func (m *Model) cmdHotkeys(string) tea.Cmd {
	m.addNotice(m.hotkeys() + m.shortcutHelp())
	return m.flush()
}

// toggleThinking shows or hides thinking blocks in what is drawn next
// (and redraws what is still on screen).
func (m *Model) toggleThinking() tea.Cmd {
	m.st.HideThinking = !m.st.HideThinking
	for _, b := range m.blocks {
		b.cache = ""
	}
	if m.st.HideThinking {
		m.notice = "thinking blocks hidden (ctrl+t shows them)"
	} else {
		m.notice = "thinking blocks shown"
	}
	return nil
}

// editorCommand is the external editor: the externalEditor setting, then
// $VISUAL, then $EDITOR, then notepad or nano.
func (m *Model) editorCommand() string {
	for _, e := range []string{m.host.ExternalEditor, os.Getenv("VISUAL"), os.Getenv("EDITOR")} {
		if strings.TrimSpace(e) != "" {
			return e
		}
	}
	if runtime.GOOS == "windows" {
		return "notepad"
	}
	return "nano"
}

type editedMsg struct {
	path string
	err  error
}

// externalEditor opens the editor's text in the external editor and takes
// back what it saved (ctrl+g).
func (m *Model) externalEditor() tea.Cmd {
	f, err := os.CreateTemp("", "pi-message-*.md")
	if err != nil {
		m.notice = "✗ " + err.Error()
		return nil
	}
	_, err = f.WriteString(m.editor.Value())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		m.notice = "✗ " + err.Error()
		return nil
	}
	fields := strings.Fields(m.editorCommand())
	c := exec.Command(fields[0], append(fields[1:], f.Name())...)
	path := f.Name()
	return tea.ExecProcess(c, func(err error) tea.Msg { return editedMsg{path: path, err: err} })
}

func (m *Model) edited(e editedMsg) tea.Cmd {
	defer os.Remove(e.path)
	if e.err != nil {
		m.notice = "✗ editor: " + e.err.Error()
		return nil
	}
	b, err := os.ReadFile(e.path)
	if err != nil {
		m.notice = "✗ " + err.Error()
		return nil
	}
	m.editor.SetValue(strings.TrimRight(string(b), "\n"))
	m.editor.CursorEnd()
	m.resizeEditor()
	return nil
}
