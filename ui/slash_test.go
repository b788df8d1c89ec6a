package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/piwasm/pi/core/resources"
)

func TestUnknownSlashCommandIsNotSent(t *testing.T) {
	dir := t.TempDir()
	rt := newTestRuntime(t, dir, 0)
	rt.Runner().Loaded.Templates = []resources.Template{{Name: "fixit", Description: "fix it"}}
	cases := []struct {
		line, notice string
		sent         bool
	}{
		{"/reloda", "did you mean /reload?", false},
		{"/fixti now", "did you mean /fixit?", false},
		{"/zzzzzzzzzz", "unknown command /zzzzzzzzzz", false},
		{"/usr/bin/env is missing", "", true}, // a path, not a command
		{"/fixit the parser", "", true},       // a template goes to the runtime
		{" /reloda as text", "", true},        // a leading space sends it as text
	}
	for _, c := range cases {
		m := New(Host{Runtime: rt, Cwd: dir, FullScreen: true})
		m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
		press(m, c.line, "enter")
		if m.working != c.sent {
			t.Errorf("%q: sent = %v, want %v", c.line, m.working, c.sent)
		}
		if c.notice != "" && !strings.Contains(plainView(m), c.notice) {
			t.Errorf("%q: screen lacks %q:\n%s", c.line, c.notice, plainView(m))
		}
	}
}

func TestHelpListsEveryBuiltin(t *testing.T) {
	h := helpText()
	for _, c := range slashCommands() {
		if !strings.Contains(h, "/"+c.name) || !strings.Contains(h, c.desc) {
			t.Errorf("/help lacks /%s", c.name)
		}
		if c.run == nil || c.desc == "" {
			t.Errorf("/%s has no handler or description", c.name)
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"reload", "reload", 0}, {"reloda", "reload", 2}, {"model", "modle", 2}, {"new", "", 3}, {"tree", "three", 1}} {
		if got := editDistance(c.a, c.b); got != c.d {
			t.Errorf("editDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
		}
	}
}
