// Package keybind is pi's table of named key actions and the reader of
// <agent-dir>/keybindings.json, in the established harness's format: the
// same action ids ("app.interrupt", "tui.editor.cursorLeft", …), the same
// defaults, the same key syntax ("ctrl+shift+x", "alt+up", "pageUp", "?").
//
// A configured value replaces an action's defaults; an empty list leaves
// the action without a key. Unlike the established harness, which drops a
// bad entry without a word, [ParseFile] reports every entry it cannot use
// (an unknown action id with the nearest known one, a key it cannot read,
// a value of the wrong type, one key given to two actions, an action pi
// has no counterpart for) as a diagnostic naming the file and line.
//
// The package knows nothing of terminals: [Key.Strokes] spells a key the
// way Bubble Tea v2 names key presses (tea.Key.Keystroke), and the UI
// matches presses against those spellings.
package keybind
