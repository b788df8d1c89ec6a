package ui

import (
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/piwasm/pi/core/keybind"
)

// modelWithKeys is a session whose keybindings.json is file.
func modelWithKeys(t *testing.T, file string) *Model {
	t.Helper()
	cfg, ds := keybind.ParseFile("keybindings.json", []byte(file))
	if len(ds) > 0 {
		t.Fatal(ds)
	}
	dir := t.TempDir()
	return New(Host{Runtime: newTestRuntime(t, dir, 0), Cwd: dir, Keys: func() *keybind.Bindings {
		return keybind.Resolve(keybind.Actions(keybind.Platform{GOOS: "linux"}), cfg)
	}})
}

func pressKeys(m *Model, keys ...tea.KeyPressMsg) {
	for _, k := range keys {
		m.Update(k)
	}
}

func typed(s string) []tea.KeyPressMsg {
	var out []tea.KeyPressMsg
	for _, r := range s {
		out = append(out, tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	return out
}

var (
	upKey    = tea.KeyPressMsg{Code: tea.KeyUp}
	enterKey = tea.KeyPressMsg{Code: tea.KeyEnter}
	ctrlA    = tea.KeyPressMsg{Code: 'a', Mod: tea.ModCtrl}
	ctrlQ    = tea.KeyPressMsg{Code: 'q', Mod: tea.ModCtrl}
	ctrlY    = tea.KeyPressMsg{Code: 'y', Mod: tea.ModCtrl}
)

// Lists follow tui.select.*: the new key moves and chooses, the old one
// does nothing.
func TestDialogFollowsSelectBindings(t *testing.T) {
	m := modelWithKeys(t, `{"tui.select.up": "k", "tui.select.confirm": "ctrl+y"}`)
	m.dialog = pickDialog("Pick", []string{"a", "b", "c"}, func(*Model, string) tea.Cmd { return nil })
	pressKeys(m, upKey)
	if m.dialog.sel != 0 {
		t.Fatalf("up still moves: sel %d", m.dialog.sel)
	}
	pressKeys(m, typed("k")...)
	if m.dialog.sel != 2 {
		t.Fatalf("k does not move up: sel %d", m.dialog.sel)
	}
	pressKeys(m, enterKey)
	if m.dialog == nil {
		t.Fatal("enter still chooses")
	}
	pressKeys(m, ctrlY)
	if m.dialog != nil {
		t.Fatal("ctrl+y does not choose")
	}
}

// The editor's commands follow tui.editor.*: a moved key works, the old
// one no longer does what it did.
func TestEditorFollowsBindings(t *testing.T) {
	m := modelWithKeys(t, `{"tui.editor.cursorLineStart": "ctrl+q"}`)
	pressKeys(m, typed("abc")...)
	pressKeys(m, ctrlA)
	pressKeys(m, typed("x")...)
	if got := m.editor.Value(); got != "abcx" {
		t.Fatalf("ctrl+a still goes to the line start: %q", got)
	}
	pressKeys(m, ctrlQ)
	pressKeys(m, typed("y")...)
	if got := m.editor.Value(); got != "yabcx" {
		t.Fatalf("ctrl+q does not go to the line start: %q", got)
	}
}

// Extension shortcuts are refused against the bindings in force: a key
// an action moved away from is free, the key it moved to is taken.
func TestShortcutsAgainstActiveBindings(t *testing.T) {
	m := modelWithKeys(t, `{"app.model.select": "alt+m"}`)
	m.bindShortcuts([]Shortcut{
		{Key: "ctrl+l", Extension: "a", Command: "one"},
		{Key: "alt+m", Extension: "a", Command: "two"},
	})
	if _, ok := m.shortcuts["ctrl+l"]; !ok {
		t.Error("ctrl+l, no longer pi's, is refused")
	}
	if _, ok := m.shortcuts["alt+m"]; ok {
		t.Error("alt+m, now pi's, is taken by the extension")
	}
}

// BenchmarkKeyPress is the cost of one typed character through the
// dispatch (every action checked against the bindings, then the editor).
func BenchmarkKeyPress(b *testing.B) {
	dir := b.TempDir()
	m := New(Host{Runtime: newTestRuntime(b, dir, 0), Cwd: dir})
	k := tea.KeyPressMsg{Code: 'a', Text: "a"}
	bs := tea.KeyPressMsg{Code: tea.KeyBackspace}
	b.ReportAllocs()
	for b.Loop() {
		m.Update(k)
		m.Update(bs)
	}
}

// The tree navigator's keys are app.tree.*: a filter moved to another key
// answers there and no longer on its default.
func TestTreeFollowsBindings(t *testing.T) {
	cfg, _ := keybind.ParseFile("keybindings.json", []byte(`{"app.tree.filter.userOnly": "alt+u"}`))
	dir := t.TempDir()
	m := New(Host{Runtime: newTestRuntime(t, dir, 2), Cwd: dir, Keys: func() *keybind.Bindings {
		return keybind.Resolve(keybind.Actions(keybind.Platform{GOOS: "linux"}), cfg)
	}})
	m.openTree("")
	if m.picker == nil {
		t.Fatal("no tree")
	}
	start := m.picker.filter
	pressKeys(m, tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl})
	if m.picker.filter != start {
		t.Fatalf("ctrl+u still filters: %s", m.picker.filter)
	}
	pressKeys(m, tea.KeyPressMsg{Code: 'u', Mod: tea.ModAlt})
	if m.picker.filter != "user-only" {
		t.Fatalf("alt+u does not filter: %s", m.picker.filter)
	}
}
