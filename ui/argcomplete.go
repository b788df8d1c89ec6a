package ui

import (
	"context"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/piwasm/pi/abi"
	"github.com/piwasm/pi/core/termtext"
)

// argState is the argument completion of extension commands: the guest
// is asked off the UI's goroutine, one question at a time (calls to one
// guest are serialised, so questions piling up behind a slow one would
// hold it), and only the latest line typed while one was out is asked
// next.
type argState struct {
	ask  string // a line to ask about after this key press
	busy bool   // a question is out
	next string // the line to ask about when it returns
}

// argItemsMsg is a guest's answer for line.
type argItemsMsg struct {
	line  string
	items []abi.CompletionItem
}

// wantArgs notes that the editor's line v ("/name prefix") should be
// completed by the extension behind name, if it completes its argument.
func (m *Model) wantArgs(v string) {
	name, _, ok := strings.Cut(v[1:], " ")
	if !ok {
		return
	}
	for _, c := range m.rt.Commands() {
		if c.Name == name && c.Completions {
			m.args.ask = v
			return
		}
	}
}

// askArgs sends the question wantArgs noted, or keeps it for when the one
// out returns.
func (m *Model) askArgs() tea.Cmd {
	line := m.args.ask
	m.args.ask = ""
	if line == "" {
		return nil
	}
	if m.args.busy {
		m.args.next = line
		return nil
	}
	m.args.busy = true
	rt := m.rt
	name, prefix, _ := strings.Cut(line[1:], " ")
	return func() tea.Msg {
		return argItemsMsg{line: line, items: rt.CompleteArgs(context.Background(), name, prefix)}
	}
}

// argItems shows an answer when the line is still what it was asked for,
// and asks the question that waited.
func (m *Model) argItems(msg argItemsMsg) tea.Cmd {
	m.args.busy = false
	if m.editor.Value() == msg.line && len(msg.items) > 0 {
		name, _, _ := strings.Cut(msg.line[1:], " ")
		m.menu = m.menu[:0]
		for _, it := range msg.items {
			// The texts come from a guest: shown escaped, and a value
			// that would put a control character in the editor is left
			// out.
			if termtext.Escape(it.Value) != it.Value || strings.Contains(it.Value, "\n") {
				continue
			}
			label := it.Label
			if label == "" {
				label = it.Value
			}
			m.menu = append(m.menu, item{value: "/" + name + " " + it.Value, label: termtext.Escape(label), desc: termtext.Escape(it.Description)})
		}
		m.menuSel = 0
	}
	if next := m.args.next; next != "" {
		m.args.next = ""
		if next != msg.line {
			m.args.ask = next
			return m.askArgs()
		}
	}
	return nil
}
