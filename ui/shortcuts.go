package ui

import (
	"fmt"
	"reflect"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/piwasm/pi/core/runtime"
)

// Shortcut is a key an extension binds (its manifest's shortcuts): it runs
// one of the extension's commands as if "/Command Args" had been typed.
type Shortcut struct {
	// Key is as abi.ParseKey returns it ("ctrl+x").
	Key         string
	Description string
	// Extension names the extension; Manifest is its extension.yaml.
	Extension, Manifest string
	// Command is the command's registered name (name:N when several
	// extensions offer it); Args its argument text.
	Command, Args string
}

// builtinKeys is every key pi gives a meaning in the editor under the
// bindings in force: the session's actions and the editor's commands. The
// keys of the tree navigator, the session picker and menus act only
// there, where extension shortcuts do not run (as in the established
// harness, which reserves only the editor's keys).
func (m *Model) builtinKeys() map[string]bool {
	keys := map[string]bool{}
	for _, a := range m.keys.Actions() {
		if !a.Applies || listOnly(a.ID) {
			continue
		}
		for _, k := range m.keys.Keys(a.ID) {
			for _, s := range k.Strokes() {
				keys[s] = true
			}
		}
	}
	km := reflect.ValueOf(m.editor.KeyMap)
	for i := 0; i < km.NumField(); i++ {
		if b, ok := km.Field(i).Interface().(key.Binding); ok && b.Enabled() {
			for _, k := range b.Keys() {
				keys[k] = true
			}
		}
	}
	return keys
}

// listOnly says whether action id acts only in a list or picker.
func listOnly(id string) bool {
	switch id {
	case "app.session.togglePath", "app.session.toggleSort", "app.session.toggleNamedFilter",
		"app.session.rename", "app.session.delete", "app.session.deleteNoninvasive":
		return true
	}
	return strings.HasPrefix(id, "app.tree.") || strings.HasPrefix(id, "tui.select.")
}

// bindShortcuts keeps the extensions' shortcuts pi can honour and returns
// a notice for each it cannot: a key pi uses keeps pi's meaning, and of
// two extensions binding one key the first (in load order) has it.
func (m *Model) bindShortcuts(list []Shortcut) string {
	builtin := m.builtinKeys()
	m.shortcuts = map[string]Shortcut{}
	m.shortcutOrder = nil
	var notes []string
	for _, s := range list {
		switch other, taken := m.shortcuts[s.Key]; {
		case builtin[s.Key]:
			notes = append(notes, fmt.Sprintf("⚠ %s: extension %s binds %s, which is one of pi's keys; pi's meaning stays", s.Manifest, s.Extension, s.Key))
		case taken:
			notes = append(notes, fmt.Sprintf("⚠ %s: extension %s binds %s, which extension %s already binds; the first keeps it", s.Manifest, s.Extension, s.Key, other.Extension))
		default:
			m.shortcuts[s.Key] = s
			m.shortcutOrder = append(m.shortcutOrder, s.Key)
		}
	}
	return strings.Join(notes, "\n")
}

// runShortcut runs the command bound to key s, if an extension bound it.
func (m *Model) runShortcut(s string) (tea.Cmd, bool) {
	sc, ok := m.shortcuts[s]
	if !ok {
		return nil, false
	}
	line := "/" + sc.Command
	if sc.Args != "" {
		line += " " + sc.Args
	}
	return m.line(line, runtime.Steer), true
}

// shortcutHelp lists the extensions' keys for /hotkeys.
func (m *Model) shortcutHelp() string {
	if len(m.shortcutOrder) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n\nKeys of extensions")
	for _, k := range m.shortcutOrder {
		s := m.shortcuts[k]
		desc := s.Description
		if desc == "" {
			desc = "/" + s.Command + " " + s.Args
		}
		fmt.Fprintf(&b, "\n  %-16s %s [%s]", k, desc, s.Extension)
	}
	return b.String()
}
