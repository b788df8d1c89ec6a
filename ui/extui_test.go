package ui

import (
	"strings"
	"testing"

	"github.com/piwasm/pi/core/permission"
	"github.com/piwasm/pi/host"
)

// An extension's question that arrives while a permission dialog is open
// waits its turn: neither asker is left without an answer.
func TestExtensionQuestionsQueueBehindOpenDialogs(t *testing.T) {
	dir := t.TempDir()
	m := New(Host{Runtime: newTestRuntime(t, dir, 0), Cwd: dir})
	perm := askMsg{q: permission.Question{Tool: "bash", Command: "rm x", Suggested: "bash(rm:*)"}, reply: make(chan permission.Answer, 1)}
	m.Update(perm)
	confirm := extAskMsg{q: host.Question{Extension: "ext", Kind: host.AskConfirm, Title: "Really?", Message: "body"}, reply: make(chan host.Answer, 1)}
	m.Update(confirm)
	input := extAskMsg{q: host.Question{Extension: "ext", Kind: host.AskInput, Title: "Name?"}, reply: make(chan host.Answer, 1)}
	m.Update(input)
	if v := plainView(m); !strings.Contains(v, "Allow this call?") {
		t.Fatalf("the permission dialog was replaced:\n%s", v)
	}
	press(m, "n")
	if got := (<-perm.reply).Choice; got != permission.DenyCall {
		t.Fatalf("permission %v", got)
	}
	if v := plainView(m); !strings.Contains(v, "[ext] Really?") {
		t.Fatalf("the extension's question did not follow:\n%s", v)
	}
	press(m, "y")
	if a := <-confirm.reply; !a.Confirmed {
		t.Fatalf("confirm %+v", a)
	}
	press(m, "A", "d", "a")
	if v := plainView(m); !strings.Contains(v, "[ext] Name?") || !strings.Contains(v, "> Ada") {
		t.Fatalf("input dialog:\n%s", v)
	}
	press(m, "enter")
	if a := <-input.reply; a.Value != "Ada" || a.Cancelled {
		t.Fatalf("input %+v", a)
	}
	// A question whose deadline passed is taken down.
	sel := extAskMsg{q: host.Question{Extension: "ext", Kind: host.AskSelect, Title: "Pick", Options: []string{"a", "b"}}, reply: make(chan host.Answer, 1)}
	m.Update(sel)
	m.Update(extDoneMsg{reply: sel.reply})
	if m.dialog != nil {
		t.Fatal("a timed-out question is still on screen")
	}
}
