package ui

import (
	"strings"
	"testing"

	"github.com/piwasm/pi/abi"
)

// An extension's key that pi uses is refused with a notice naming the
// manifest; of two extensions binding one key the first keeps it; the
// others run their command and /hotkeys lists them.
func TestShortcutBinding(t *testing.T) {
	dir := t.TempDir()
	m := New(Host{Runtime: newTestRuntime(t, dir, 0), Cwd: dir, Shortcuts: func() []Shortcut {
		return []Shortcut{
			{Key: "ctrl+c", Extension: "a", Manifest: "/x/a/extension.yaml", Command: "spin"},
			{Key: "ctrl+w", Extension: "a", Manifest: "/x/a/extension.yaml", Command: "spin"}, // the editor's
			{Key: "ctrl+x", Extension: "a", Manifest: "/x/a/extension.yaml", Command: "spin", Args: "x", Description: "spin it"},
			{Key: "ctrl+x", Extension: "b", Manifest: "/x/b/extension.yaml", Command: "other"},
		}
	}})
	var b strings.Builder
	for _, bl := range m.blocks {
		b.WriteString(bl.view(300, false))
	}
	view := b.String()
	for _, want := range []string{
		"/x/a/extension.yaml: extension a binds ctrl+c, which is one of pi's keys",
		"binds ctrl+w, which is one of pi's keys",
		"/x/b/extension.yaml: extension b binds ctrl+x, which extension a already binds",
	} {
		if !strings.Contains(view, want) {
			t.Errorf("missing %q in:\n%s", want, view)
		}
	}
	if _, ok := m.shortcuts["ctrl+c"]; ok {
		t.Fatal("ctrl+c bound")
	}
	if sc := m.shortcuts["ctrl+x"]; sc.Extension != "a" {
		t.Fatalf("ctrl+x bound to %+v", sc)
	}
	if h := m.shortcutHelp(); !strings.Contains(h, "ctrl+x") || !strings.Contains(h, "spin it [a]") || strings.Contains(h, "ctrl+c") {
		t.Fatalf("hotkeys: %s", h)
	}
}

// A guest's completions are shown escaped; a value holding a control
// character never reaches the editor; an answer for a line no longer in
// the editor is dropped.
func TestArgumentCompletionAnswers(t *testing.T) {
	dir := t.TempDir()
	m := New(Host{Runtime: newTestRuntime(t, dir, 0), Cwd: dir})
	m.editor.SetValue("/preset p")
	m.argItems(argItemsMsg{line: "/preset p", items: []abi.CompletionItem{
		{Value: "plan", Description: "think \x1b[2Kfirst"},
		{Value: "p\x1b]0;pwned\x07"},
	}})
	if len(m.menu) != 1 || m.menu[0].value != "/preset plan" || m.menu[0].desc != `think \x1b[2Kfirst` {
		t.Fatalf("menu %+v", m.menu)
	}
	m.menu = nil
	m.argItems(argItemsMsg{line: "/preset", items: []abi.CompletionItem{{Value: "plan"}}})
	if len(m.menu) != 0 {
		t.Fatalf("a stale answer was shown: %+v", m.menu)
	}
}
