package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/piwasm/pi/core/prompt"
	"github.com/piwasm/pi/core/settings"
)

// displayOf is the layout a settings file gives.
func displayOf(t *testing.T, data string) *Display {
	t.Helper()
	l, ds := settings.Parse(settings.Builtin(), "/a/settings.json", settings.FileGlobal, []byte(data))
	for _, d := range ds {
		t.Logf("%s: %s", d.Kind, d.Message)
	}
	d := DisplayFrom(settings.New(settings.Builtin(), l))
	return &d
}

// editorLine is the screen line holding the editor's prompt.
func editorLine(t *testing.T, m *Model) string {
	t.Helper()
	for _, l := range strings.Split(plainView(m), "\n") {
		if strings.HasPrefix(strings.TrimLeft(l, " "), ">") {
			return l
		}
	}
	t.Fatalf("no editor line in:\n%s", plainView(m))
	return ""
}

// editorPaddingX indents the editor on both sides; out of range it is
// clamped to 3, and a narrow window leaves the editor a column.
func TestEditorPaddingX(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		data   string
		width  int
		indent string
	}{
		{`{}`, 60, ""},
		{`{"editorPaddingX": 2}`, 60, "  "},
		{`{"editorPaddingX": 9}`, 60, "   "},
		{`{"editorPaddingX": 3}`, 5, "  "},
	} {
		m := New(Host{Runtime: newTestRuntime(t, dir, 0), Cwd: dir, Display: displayOf(t, c.data)})
		m.Update(tea.WindowSizeMsg{Width: c.width, Height: 20})
		press(m, "hello")
		l := editorLine(t, m)
		if !strings.HasPrefix(l, c.indent+">") {
			t.Errorf("%s at %d columns: editor line %q, want it after %q", c.data, c.width, l, c.indent)
		}
		if w := ansi.StringWidth(l); w > c.width {
			t.Errorf("%s: editor line %d columns wide on a %d-column screen", c.data, w, c.width)
		}
	}
}

// autocompleteMaxVisible is how many completions show at once (clamped
// to 3..20); the rest scroll.
func TestAutocompleteMaxVisible(t *testing.T) {
	dir := t.TempDir()
	for data, want := range map[string]int{`{"autocompleteMaxVisible": 3}`: 3, `{"autocompleteMaxVisible": 1}`: 3, `{}`: 5, `{"autocompleteMaxVisible": 7}`: 7} {
		rt := newTestRuntime(t, dir, 0)
		m := New(Host{Runtime: rt, Cwd: dir, Display: displayOf(t, data)})
		m.Update(tea.WindowSizeMsg{Width: 100, Height: 40})
		press(m, "/")
		shown := 0
		for _, l := range strings.Split(plainView(m), "\n") {
			if strings.HasPrefix(l, "  /") || strings.HasPrefix(l, "▸ /") {
				shown++
			}
		}
		if shown != want {
			t.Errorf("%s: %d completions shown, want %d:\n%s", data, shown, want, plainView(m))
		}
		if !strings.Contains(plainView(m), "up/down for more") {
			t.Errorf("%s: the list does not say there are more", data)
		}
	}
}

// outputPad 0 draws the transcript one column further left than pi's
// usual layout (1); a block with a marker at the edge keeps its layout.
func TestOutputPad(t *testing.T) {
	dir := t.TempDir()
	first := func(data string) string {
		m := New(Host{Runtime: newTestRuntime(t, dir, 0), Cwd: dir, Display: displayOf(t, data)})
		m.Update(tea.WindowSizeMsg{Width: 60, Height: 20})
		m.addMessage(prompt.Message{Role: "assistant", StopReason: "stop", Content: prompt.TextContent("The answer is here.")})
		m.addNotice("a notice from pi")
		return ansi.Strip(m.blocks[len(m.blocks)-2].view(60, false) + "\n" + m.blocks[len(m.blocks)-1].view(60, false))
	}
	padded, flush := first(`{}`), first(`{"outputPad": 0}`)
	if !strings.Contains(padded, "\n  a notice from pi") || !strings.HasPrefix(padded, "  The answer") {
		t.Errorf("outputPad 1:\n%q", padded)
	}
	if !strings.Contains(flush, "\n a notice from pi") || !strings.HasPrefix(flush, " The answer") {
		t.Errorf("outputPad 0:\n%q", flush)
	}
	if got := unpad("› first line\n  second line"); got != "› first line\n  second line" {
		t.Errorf("a user message's lines were moved apart: %q", got)
	}
}

// markdown.codeBlockIndent starts each line of a reply's code block.
func TestCodeBlockIndentInTranscript(t *testing.T) {
	dir := t.TempDir()
	m := New(Host{Runtime: newTestRuntime(t, dir, 0), Cwd: dir, Display: displayOf(t, `{"markdown": {"codeBlockIndent": "> "}}`)})
	m.Update(tea.WindowSizeMsg{Width: 60, Height: 20})
	m.addMessage(prompt.Message{Role: "assistant", StopReason: "stop", Content: prompt.TextContent("Run this:\n\n```sh\nmake test\nmake lint\n```")})
	v := ansi.Strip(m.blocks[len(m.blocks)-1].view(60, false))
	if !strings.Contains(v, "  > make test") || !strings.Contains(v, "  > make lint") {
		t.Errorf("code block:\n%s", v)
	}
}

// /settings applies the full-screen layout keys at once and says when the
// others take effect.
func TestSettingsAppliesDisplayKeys(t *testing.T) {
	m := fullScreenModel(t, `{}`)
	if note, ok := m.setDisplay("fullscreenScrollbar", `"always"`); !ok || note != "" || m.disp.Scrollbar != "always" {
		t.Errorf("fullscreenScrollbar: %q %v %q", note, ok, m.disp.Scrollbar)
	}
	if !strings.Contains(plainView(m), "┃") {
		t.Errorf("the bar does not show at once:\n%s", plainView(m))
	}
	if note, ok := m.setDisplay("tuiMode", `"regular"`); !ok || !strings.Contains(note, "next start") {
		t.Errorf("tuiMode: %q %v", note, ok)
	}
	if _, ok := m.setDisplay("hideThinkingBlock", "true"); ok {
		t.Error("a key of another kind taken")
	}
}
