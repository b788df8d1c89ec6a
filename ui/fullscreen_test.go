package ui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// fullScreenModel is a full-screen session of 40 numbered notices in a
// 60×20 window, with the layout a settings file gives.
func fullScreenModel(t *testing.T, data string) *Model {
	t.Helper()
	dir := t.TempDir()
	m := New(Host{Runtime: newTestRuntime(t, dir, 0), Cwd: dir, FullScreen: true, Display: displayOf(t, data),
		ResumeCommand: func() string { return "pi --session /s/x.jsonl" }})
	m.Update(tea.WindowSizeMsg{Width: 60, Height: 20})
	for i := range 40 {
		m.addNotice(fmt.Sprintf("line %02d", i))
	}
	return m
}

// lastShown is the highest numbered notice on screen.
func lastShown(m *Model) string {
	last := ""
	for _, l := range strings.Split(plainView(m), "\n") {
		if i := strings.Index(l, "line "); i >= 0 {
			last = l[i : i+7]
		}
	}
	return last
}

// fullscreenWheelScrollLines: each wheel step moves that many lines; alt
// five times as many; scrolling stops at the top and the bottom.
func TestWheelScrollLines(t *testing.T) {
	m := fullScreenModel(t, `{"fullscreenWheelScrollLines": 4}`)
	if got := lastShown(m); got != "line 39" {
		t.Fatalf("the window does not end with the last line: %q", got)
	}
	m.Update(tea.MouseWheelMsg{Button: tea.MouseWheelUp})
	if got := lastShown(m); got != "line 37" { // 4 lines: two notices and the blank lines between
		t.Errorf("one wheel step up: last line %q\n%s", got, plainView(m))
	}
	m.Update(tea.MouseWheelMsg{Button: tea.MouseWheelUp, Mod: tea.ModAlt})
	if got := lastShown(m); got != "line 27" {
		t.Errorf("alt+wheel (20 lines more): last line %q", got)
	}
	for range 50 {
		m.Update(tea.MouseWheelMsg{Button: tea.MouseWheelUp, Mod: tea.ModAlt})
	}
	if v := plainView(m); !strings.Contains(v, "line 00") {
		t.Errorf("scrolling far up does not stop at the top:\n%s", v)
	}
	m.Update(tea.MouseWheelMsg{Button: tea.MouseWheelDown, Mod: tea.ModAlt})
	if strings.Contains(plainView(m), "line 00") {
		t.Errorf("one step down from the top did not move (scroll ran past the top)")
	}
	for range 50 {
		m.Update(tea.MouseWheelMsg{Button: tea.MouseWheelDown})
	}
	if got := lastShown(m); got != "line 39" {
		t.Errorf("back down: %q", got)
	}
	// Full-screen mode asks the terminal for the wheel's events.
	if v := m.View(); v.MouseMode != tea.MouseModeCellMotion {
		t.Errorf("full-screen mode does not read the wheel")
	}
}

// fullscreenScrollbar: "always" keeps a bar in the last column, "hidden"
// never draws one, "auto" shows it while scrolling.
func TestFullscreenScrollbar(t *testing.T) {
	bars := func(m *Model) int {
		n := 0
		for _, l := range strings.Split(plainView(m), "\n") {
			if r := []rune(strings.TrimRight(l, "")); len(r) > 0 && ansi.StringWidth(l) == 60 && (r[len(r)-1] == '│' || r[len(r)-1] == '┃') {
				n++
			}
		}
		return n
	}
	always, hidden, auto := fullScreenModel(t, `{"fullscreenScrollbar": "always"}`), fullScreenModel(t, `{"fullscreenScrollbar": "hidden"}`), fullScreenModel(t, `{}`)
	if n := bars(always); n < 15 {
		t.Errorf("always: a bar on %d lines:\n%s", n, plainView(always))
	}
	if !strings.Contains(plainView(always), "┃") {
		t.Errorf("always: no thumb")
	}
	if n := bars(auto); n != 0 {
		t.Errorf("auto before scrolling: a bar on %d lines", n)
	}
	auto.Update(tea.MouseWheelMsg{Button: tea.MouseWheelUp})
	hidden.Update(tea.MouseWheelMsg{Button: tea.MouseWheelUp})
	if n := bars(auto); n < 15 {
		t.Errorf("auto while scrolling: a bar on %d lines:\n%s", n, plainView(auto))
	}
	if n := bars(hidden); n != 0 {
		t.Errorf("hidden: a bar on %d lines", n)
	}
}

// fullscreenExitOutput: leaving full-screen mode prints the transcript and
// how to resume ("transcript"), or only the latter ("resume-hint").
func TestFullscreenExitOutput(t *testing.T) {
	out := ansi.Strip(fullScreenModel(t, `{}`).exitOutput())
	if !strings.Contains(out, "line 00") || !strings.Contains(out, "line 39") || !strings.HasSuffix(out, "To resume this session:\npi --session /s/x.jsonl\n") {
		t.Errorf("transcript:\n%s", out)
	}
	out = ansi.Strip(fullScreenModel(t, `{"fullscreenExitOutput": "resume-hint"}`).exitOutput())
	if out != "To resume this session:\npi --session /s/x.jsonl\n" {
		t.Errorf("resume-hint:\n%q", out)
	}
}
