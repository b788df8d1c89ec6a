package ui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/piwasm/pi/core/keybind"
	"github.com/piwasm/pi/core/prompt"
)

// pastedMsg is the clipboard's content, read off the UI goroutine.
type pastedMsg struct {
	p   Pasted
	err error
}

// hostKeys are the host's bindings (nil: the defaults).
func (m *Model) hostKeys() *keybind.Bindings {
	if m.host.Keys == nil {
		return nil
	}
	return m.host.Keys()
}

// pasteClipboard reads the clipboard (app.clipboard.pasteImage): an image
// is saved to a file whose path goes into the editor, as the established
// harness does, and the image goes with the next message that still
// names that path; otherwise the clipboard's text is inserted.
func (m *Model) pasteClipboard() tea.Cmd {
	if m.host.PasteClipboard == nil {
		return m.unavailable("pasting from the clipboard")
	}
	read := m.host.PasteClipboard
	return func() tea.Msg {
		p, err := read()
		return pastedMsg{p, err}
	}
}

func (m *Model) pasted(msg pastedMsg) tea.Cmd {
	switch {
	case msg.err != nil:
		m.addNotice("✗ cannot paste from the clipboard: " + msg.err.Error())
		return m.flush()
	case msg.p.Image != nil:
		if m.images == nil {
			m.images = map[string]prompt.Block{}
		}
		m.images[msg.p.Path] = *msg.p.Image
		text := msg.p.Path
		if v := m.editor.Value(); v != "" && !strings.HasSuffix(v, " ") && !strings.HasSuffix(v, "\n") {
			text = " " + text
		}
		m.editor.InsertString(text)
	case msg.p.Text != "":
		m.editor.InsertString(msg.p.Text)
	default:
		m.notice = "the clipboard is empty"
		return nil
	}
	m.resizeEditor()
	m.complete()
	return nil
}

// pastedImages takes the pasted images whose paths text still names, in
// the order they appear; the others are forgotten.
func (m *Model) pastedImages(text string) []prompt.Block {
	if len(m.images) == 0 {
		return nil
	}
	type at struct {
		pos int
		img prompt.Block
	}
	var found []at
	for path, img := range m.images {
		if i := strings.Index(text, path); i >= 0 {
			found = append(found, at{i, img})
		}
	}
	m.images = nil
	var out []prompt.Block
	for len(found) > 0 {
		first := 0
		for i, f := range found {
			if f.pos < found[first].pos {
				first = i
			}
		}
		out = append(out, found[first].img)
		found = append(found[:first], found[first+1:]...)
	}
	return out
}
