package ui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/piwasm/pi/host"
)

// TestExtensionEditorAndStatus: an extension's editor (pi_ui_editor)
// opens with its prefill, takes typed text and new lines, and hands the
// text back on enter; esc gives no answer. Status entries (pi_ui_status)
// show in the footer until removed.
func TestExtensionEditorAndStatus(t *testing.T) {
	dir := t.TempDir()
	m := New(Host{Runtime: newTestRuntime(t, dir, 0), Cwd: dir})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 30})

	m.Update(extStatusMsg{key: "notes", text: "writing a note…"})
	m.Update(extStatusMsg{key: "notes:count", text: "3 notes"})
	if f := ansi.Strip(m.footer()); !strings.Contains(f, "• writing a note… • 3 notes") {
		t.Errorf("footer %q", f)
	}
	m.Update(extStatusMsg{key: "notes", text: ""})
	if f := ansi.Strip(m.footer()); strings.Contains(f, "writing") || !strings.Contains(f, "3 notes") {
		t.Errorf("footer after a removal %q", f)
	}

	var many []string
	for i := range 12 {
		many = append(many, fmt.Sprintf("row %d", i))
	}
	m.Update(extWidgetMsg{key: "notes", lines: many, below: true})
	m.Update(extWidgetMsg{key: "notes:top", lines: []string{"above it"}})
	v := plainView(m)
	above, below := strings.Index(v, "above it"), strings.Index(v, "row 0")
	if above < 0 || below < above || !strings.Contains(v, "row 9") || strings.Contains(v, "row 10") || !strings.Contains(v, "widget cut short") {
		t.Errorf("widgets:\n%s", v)
	}
	m.Update(extWidgetMsg{key: "notes"})
	if v := plainView(m); strings.Contains(v, "row 0") {
		t.Errorf("a removed widget is still drawn:\n%s", v)
	}

	m.Update(extTitleMsg("pi — note: milk"))
	if v := m.View(); v.WindowTitle != "pi — note: milk" {
		t.Errorf("window title %q", v.WindowTitle)
	}
	m.Update(extEditorTextMsg("finish me"))
	if got := m.editor.Value(); got != "finish me" {
		t.Errorf("editor holds %q", got)
	}
	m.editor.SetValue("")

	reply := make(chan host.Answer, 1)
	m.Update(extAskMsg{q: host.Question{Extension: "notes", Kind: host.AskEditor, Title: "Note", Prefill: "first"}, reply: reply})
	if v := plainView(m); !strings.Contains(v, "[notes] Note") || !strings.Contains(v, "first") {
		t.Fatalf("no editor on screen:\n%s", v)
	}
	press(m, " line")
	m.Update(tea.KeyPressMsg{Code: tea.KeyEnter, Mod: tea.ModShift})
	press(m, "second", "enter")
	if a := <-reply; a.Cancelled || a.Value != "first line\nsecond" {
		t.Fatalf("answer %+v", a)
	}
	m.Update(extAskMsg{q: host.Question{Extension: "notes", Kind: host.AskEditor, Title: "Note"}, reply: reply})
	press(m, "x", "esc")
	if a := <-reply; !a.Cancelled {
		t.Fatalf("esc answered %+v", a)
	}
}
