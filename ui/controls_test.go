package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/piwasm/pi/core/provider"
)

func fullScreen(t *testing.T, h Host) *Model {
	h.FullScreen = true
	m := New(h)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	return m
}

func TestThinkingLevelControls(t *testing.T) {
	dir := t.TempDir()
	rt := newTestRuntime(t, dir, 0)
	r := rt.Route()
	r.Reasoning = true
	rt.SetRoute(r)
	m := fullScreen(t, Host{Runtime: rt, Cwd: dir})

	m.Update(tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift})
	if got := rt.Route().ThinkingLevel(); got != "minimal" {
		t.Fatalf("shift+tab from off: %q, want minimal", got)
	}
	press(m, "/thinking high", "enter")
	if got := rt.Route().ThinkingLevel(); got != "high" {
		t.Fatalf("/thinking high: %q", got)
	}
	m.Update(tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift})
	if got := rt.Route().ThinkingLevel(); got != "off" {
		t.Errorf("shift+tab after the highest level the model takes: %q, want off", got)
	}
	press(m, "/thinking max", "enter")
	if got := rt.Route().ThinkingLevel(); got != "off" || !strings.Contains(plainView(m), "takes the thinking levels off, minimal, low, medium, high") {
		t.Errorf("a level the model does not take was set (%q) or not explained:\n%s", got, plainView(m))
	}

	r = rt.Route()
	r.Reasoning = false
	rt.SetRoute(r)
	m.Update(tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift})
	if rt.Route().Thinking != "" || !strings.Contains(plainView(m), "does not think") {
		t.Errorf("a model without reasoning got a level: %q", rt.Route().Thinking)
	}
}

func TestCtrlPCyclesScopedModels(t *testing.T) {
	dir := t.TempDir()
	rt := newTestRuntime(t, dir, 0)
	all := []string{"mock/m1", "mock/m2", "other/m3"}
	var scope []string
	h := Host{Runtime: rt, Cwd: dir,
		Models:       func() ([]string, error) { return all, nil },
		ScopedModels: func() ([]string, error) { return scope, nil },
		SetModel: func(spec string) error {
			p, id, _ := strings.Cut(spec, "/")
			rt.SetRoute(provider.Route{Provider: p, ModelID: id})
			return nil
		}}
	m := fullScreen(t, h)
	cur := func() string { r := rt.Route(); return r.Provider + "/" + r.ModelID }

	ctrlP := tea.KeyPressMsg{Code: 'p', Mod: tea.ModCtrl}
	back := tea.KeyPressMsg{Code: 'p', Mod: tea.ModCtrl | tea.ModShift}
	m.Update(ctrlP)
	if cur() != "mock/m2" {
		t.Fatalf("ctrl+p over every model: %s", cur())
	}
	m.Update(ctrlP)
	m.Update(ctrlP)
	if cur() != "mock/m1" {
		t.Fatalf("ctrl+p wraps: %s", cur())
	}
	m.Update(back)
	if cur() != "other/m3" {
		t.Fatalf("shift+ctrl+p goes back: %s", cur())
	}

	scope = []string{"mock/m1", "other/m3"}
	m.Update(ctrlP)
	if cur() != "mock/m1" {
		t.Fatalf("ctrl+p in the --models scope: %s", cur())
	}

	// /scoped-models: tick mock/m2 only, keep it.
	press(m, "/scoped-models", "enter")
	if m.dialog == nil || m.dialog.checked == nil {
		t.Fatal("no list to tick")
	}
	if !m.dialog.checked[0] || m.dialog.checked[1] || !m.dialog.checked[2] {
		t.Fatalf("the current scope is not ticked: %v", m.dialog.checked)
	}
	m.Update(tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}) // untick m1
	press(m, "down")
	m.Update(tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}) // tick m2
	press(m, "down")
	m.Update(tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}) // untick m3
	press(m, "enter")
	m.Update(ctrlP)
	m.Update(ctrlP)
	if cur() != "mock/m2" || !strings.Contains(plainView(m), "only mock/m2 is in scope") {
		t.Errorf("after /scoped-models with m2 alone: %s\n%s", cur(), plainView(m))
	}
}

func TestExportWritesWhatItSays(t *testing.T) {
	dir := t.TempDir()
	rt := newTestRuntime(t, dir, 2)
	m := fullScreen(t, Host{Runtime: rt, Cwd: dir})
	press(m, "/export out.html", "enter")
	press(m, "/export notes/out.md", "enter") // missing directory: an error, said
	os.Mkdir(filepath.Join(dir, "notes"), 0o755)
	press(m, "/export notes/out.md", "enter")
	press(m, "/export s.jsonl", "enter") // an in-memory session has no file
	html, err := os.ReadFile(filepath.Join(dir, "out.html"))
	if err != nil || !strings.Contains(string(html), "question 1: what does `f1` do?") || !strings.Contains(string(html), "<!doctype html>") {
		t.Errorf("html export: %v\n%.300s", err, html)
	}
	md, err := os.ReadFile(filepath.Join(dir, "notes", "out.md"))
	if err != nil || !strings.Contains(string(md), "## Answer 1") {
		t.Errorf("markdown export: %v\n%.300s", err, md)
	}
	// The notices wrap at the screen's width, a long temporary directory's
	// path anywhere: compared without white space.
	v := plainView(m)
	squeeze := func(s string) string { return strings.Join(strings.Fields(s), "") }
	for _, want := range []string{"exported 8 messages to " + filepath.Join(dir, "out.html"), "✗ export:", "not saved (--no-session)"} {
		if !strings.Contains(squeeze(v), squeeze(want)) {
			t.Errorf("screen lacks %q:\n%s", want, v)
		}
	}
}

func TestCopyTakesTheLastReply(t *testing.T) {
	dir := t.TempDir()
	var got string
	m := fullScreen(t, Host{Runtime: newTestRuntime(t, dir, 2), Cwd: dir, Clipboard: func(s string) error { got = s; return nil }})
	press(m, "/copy", "enter")
	if !strings.HasPrefix(got, "## Answer 1") {
		t.Errorf("copied %q", got)
	}
	empty := fullScreen(t, Host{Runtime: newTestRuntime(t, dir, 0), Cwd: dir, Clipboard: func(s string) error { t.Error("copied from an empty session"); return nil }})
	press(empty, "/copy", "enter")
	if !strings.Contains(plainView(empty), "nothing to copy") {
		t.Error("empty session: no explanation")
	}
}

func TestCtrlTFoldsThinking(t *testing.T) {
	dir := t.TempDir()
	m := fullScreen(t, Host{Runtime: newTestRuntime(t, dir, 0), Cwd: dir})
	m.Update(tea.KeyPressMsg{Code: 't', Mod: tea.ModCtrl})
	if !m.st.HideThinking {
		t.Fatal("ctrl+t did not hide thinking")
	}
	m.Update(tea.KeyPressMsg{Code: 't', Mod: tea.ModCtrl})
	if m.st.HideThinking {
		t.Fatal("ctrl+t twice did not show thinking again")
	}
}

func TestExternalEditorChoice(t *testing.T) {
	m := New(Host{Runtime: newTestRuntime(t, t.TempDir(), 0), ExternalEditor: "code --wait"})
	if got := m.editorCommand(); got != "code --wait" {
		t.Errorf("externalEditor setting not first: %q", got)
	}
	t.Setenv("VISUAL", "vi")
	m.host.ExternalEditor = ""
	if got := m.editorCommand(); got != "vi" {
		t.Errorf("$VISUAL not used: %q", got)
	}
}

func TestSessionShowsCounts(t *testing.T) {
	dir := t.TempDir()
	m := fullScreen(t, Host{Runtime: newTestRuntime(t, dir, 2), Cwd: dir})
	press(m, "/session", "enter")
	if v := plainView(m); !strings.Contains(v, "messages 8: 2 from you, 4 replies, 2 tool calls, 2 results") {
		t.Errorf("/session:\n%s", v)
	}
}
