package ui

import (
	"fmt"
	"os"
	goruntime "runtime"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
	"github.com/piwasm/pi/core/keybind"
)

// HostPlatform is the platform whose default keys apply here (WSL gets
// the Windows keys, as in the established harness).
func HostPlatform() keybind.Platform {
	return keybind.Platform{GOOS: goruntime.GOOS, WSL: goruntime.GOOS == "linux" && (os.Getenv("WSL_DISTRO_NAME") != "" || os.Getenv("WSL_INTEROP") != "")}
}

// is reports whether the press k triggers action id under the bindings in
// force (keybindings.json over the defaults).
func (m *Model) is(k tea.KeyPressMsg, id string) bool {
	// One press is checked against many actions: its spellings are made
	// once (Keystroke builds a string each call).
	if !m.spelt || k != m.pressed {
		m.pressed, m.spelling, m.spelt = k, [2]string{k.Keystroke(), k.String()}, true
	}
	return m.keys.Matches(id, m.spelling[0], m.spelling[1])
}

// setKeys puts bindings in force: the session's dispatch reads them, and
// the editor's own commands are rebound to their actions' keys.
func (m *Model) setKeys(b *keybind.Bindings) {
	if b == nil {
		b = keybind.Defaults(HostPlatform())
	}
	m.keys = b
	bind := func(ids ...string) key.Binding {
		var strokes []string
		for _, id := range ids {
			for _, k := range b.Keys(id) {
				strokes = append(strokes, k.Strokes()...)
			}
		}
		if len(strokes) == 0 {
			// A binding without keys never matches.
			return key.NewBinding(key.WithDisabled())
		}
		return key.NewBinding(key.WithKeys(strokes...))
	}
	km := textarea.DefaultKeyMap()
	km.LinePrevious = bind("tui.editor.cursorUp")
	km.LineNext = bind("tui.editor.cursorDown")
	km.CharacterBackward = bind("tui.editor.cursorLeft")
	km.CharacterForward = bind("tui.editor.cursorRight")
	km.WordBackward = bind("tui.editor.cursorWordLeft")
	km.WordForward = bind("tui.editor.cursorWordRight")
	km.LineStart = bind("tui.editor.cursorLineStart")
	km.LineEnd = bind("tui.editor.cursorLineEnd")
	km.PageUp = bind("tui.editor.pageUp")
	km.PageDown = bind("tui.editor.pageDown")
	km.DeleteCharacterBackward = bind("tui.editor.deleteCharBackward")
	km.DeleteCharacterForward = bind("tui.editor.deleteCharForward")
	km.DeleteWordBackward = bind("tui.editor.deleteWordBackward")
	km.DeleteWordForward = bind("tui.editor.deleteWordForward")
	km.DeleteBeforeCursor = bind("tui.editor.deleteToLineStart")
	km.DeleteAfterCursor = bind("tui.editor.deleteToLineEnd")
	km.InsertNewline = bind("tui.input.newLine")
	// Pasting is app.clipboard.pasteImage (an image, else text); ctrl+t
	// and ctrl+g are pi's (thinking blocks, the external editor), so the
	// editor's transpose and select-all would only surface when those are
	// rebound, as keys nobody asked for.
	km.Paste = key.NewBinding(key.WithDisabled())
	km.TransposeCharacterBackward = key.NewBinding(key.WithDisabled())
	km.SelectAll = key.NewBinding(key.WithDisabled())
	m.editor.KeyMap = km
}

// selectKey names a press in a menu, dialog or list by the tui.select.*
// action it triggers ("up", "down", "pgup", "pgdown", "enter", "esc"), so
// the lists follow keybindings.json; a press that names one of those keys
// but no longer triggers it comes back as "" (it was moved elsewhere or
// disabled).
func (m *Model) selectKey(k tea.KeyPressMsg) string {
	for _, a := range []struct{ id, name string }{
		{"tui.select.confirm", "enter"}, {"tui.select.cancel", "esc"},
		{"tui.select.up", "up"}, {"tui.select.down", "down"},
		{"tui.select.pageUp", "pgup"}, {"tui.select.pageDown", "pgdown"},
	} {
		if m.is(k, a.id) {
			return a.name
		}
	}
	switch s := k.String(); s {
	case "enter", "esc", "ctrl+c", "up", "down", "pgup", "pgdown":
		return ""
	default:
		return s
	}
}

// keyNames writes an action's keys for people ("none" when it has none).
func (m *Model) keyNames(id string) string {
	var out []string
	for _, k := range m.keys.Keys(id) {
		out = append(out, k.String())
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ", ")
}

// hotkeys lists the bindings in force, for /hotkeys.
func (m *Model) hotkeys() string {
	var b strings.Builder
	b.WriteString("Keys (ids and keys as in keybindings.json; * set there)")
	var unbound []string
	for _, a := range m.keys.Actions() {
		if !a.Applies {
			continue
		}
		if len(m.keys.Keys(a.ID)) == 0 {
			unbound = append(unbound, a.ID)
			continue
		}
		mark := " "
		if m.keys.Configured(a.ID) {
			mark = "*"
		}
		fmt.Fprintf(&b, "\n %s%-22s %-46s %s", mark, m.keyNames(a.ID), a.Description, a.ID)
	}
	if len(unbound) > 0 {
		b.WriteString("\n\nWithout a key: " + strings.Join(unbound, ", "))
	}
	b.WriteString("\n\nAlso: ! runs a command (!! without adding its output), / a command, @ completes a path, esc twice opens /tree (doubleEscapeAction)")
	return b.String()
}

// customKey names a press in the session picker (a custom dialog) by the
// default key of the action it triggers there, so the picker, which
// speaks in those names, follows keybindings.json; a press of one of
// those names that no longer triggers its action comes back as "".
func (m *Model) customKey(k tea.KeyPressMsg) string {
	for _, a := range []struct{ id, name string }{
		{"app.session.toggleSort", "ctrl+s"}, {"app.session.toggleNamedFilter", "ctrl+n"},
		{"app.session.togglePath", "ctrl+p"}, {"app.session.delete", "ctrl+d"},
		{"app.session.deleteNoninvasive", "ctrl+backspace"}, {"app.session.rename", "ctrl+r"},
	} {
		if m.is(k, a.id) {
			return a.name
		}
		if k.String() == a.name {
			return ""
		}
	}
	if s := m.selectKey(k); s != "" || k.String() != "ctrl+c" {
		return s
	}
	return ""
}
