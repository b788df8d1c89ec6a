package ui

import (
	"context"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/piwasm/pi/core/provider"
	"github.com/piwasm/pi/core/runtime"
	"github.com/piwasm/pi/core/session"
)

// run runs a command's work as Bubble Tea would and feeds its message
// back.
func run(m *Model, cmd tea.Cmd) {
	for cmd != nil {
		msg := cmd()
		if _, ok := msg.(navigatedMsg); !ok {
			return
		}
		_, cmd = m.Update(msg)
	}
}

// blocksText is everything the session printed, as text.
func blocksText(m *Model) string {
	var b strings.Builder
	for _, bl := range m.blocks {
		b.WriteString(bl.view(100, false) + "\n")
	}
	return b.String()
}

func countType(tr *session.Transcript, typ string) int {
	n := 0
	for _, e := range tr.Snapshot() {
		if e.Type == typ {
			n++
		}
	}
	return n
}

func TestTreeNavigatesWithASummary(t *testing.T) {
	dir := t.TempDir()
	rt := newTestRuntime(t, dir, 2)
	var summarised []session.Entry
	var focus string
	sum := func(ctx context.Context, entries []session.Entry, instr string, replace bool) (session.BranchSummary, error) {
		summarised, focus = entries, instr
		return session.BranchSummary{Summary: "explored question 1"}, nil
	}
	m := New(Host{Runtime: rt, Cwd: dir, FullScreen: true, Summarizer: sum})
	press(m, "/tree", "enter")
	if m.picker == nil {
		t.Fatal("/tree opened nothing")
	}
	v := plainView(m)
	for _, want := range []string{"Session tree", "user: question 0", "assistant: ## Answer 1", "• "} {
		if !strings.Contains(v, want) {
			t.Errorf("the tree lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "[system]") {
		t.Errorf("the default filter shows bookkeeping:\n%s", v)
	}
	// Search narrows to the second question; enter asks about a summary.
	press(m, "question 1", "enter")
	if m.dialog == nil || m.dialog.title != "Summarize branch?" {
		t.Fatalf("no summary question: %v", m.dialog)
	}
	// With a custom prompt.
	press(m, "down", "down", "enter")
	if m.input == nil {
		t.Fatal("no instructions asked")
	}
	press(m, "keep the file names")
	run(m, press(m, "enter"))
	if focus != "keep the file names" || len(summarised) == 0 {
		t.Errorf("summariser got focus %q and %d entries", focus, len(summarised))
	}
	if got := m.editor.Value(); !strings.HasPrefix(got, "question 1:") {
		t.Errorf("the editor holds %q, not the message navigated to", got)
	}
	tr := rt.Transcript()
	if countType(tr, session.TypeBranchSummary) != 1 {
		t.Errorf("no branch_summary entry written")
	}
	msgs := rt.Messages()
	if last := msgs[len(msgs)-1]; last.Role != "branchSummary" {
		t.Errorf("the context ends with %s, not the summary", last.Role)
	}
	if !strings.Contains(blocksText(m), "Navigated to selected point") {
		t.Errorf("no notice:\n%s", blocksText(m))
	}

	// A label from the tree, then the labelled-only filter.
	m.editor.Reset()
	press(m, "/tree", "enter", "L")
	if m.input == nil {
		t.Fatal("shift+l asked for no label")
	}
	press(m, "checkpoint", "enter")
	if m.picker == nil {
		t.Fatal("the tree did not come back after the label")
	}
	m.Update(tea.KeyPressMsg{Code: 'l', Mod: tea.ModCtrl})
	if v := plainView(m); !strings.Contains(v, "[checkpoint]") || !strings.Contains(v, "labeled-only") {
		t.Errorf("labelled view:\n%s", v)
	}
	press(m, "esc")
	if m.picker != nil {
		t.Error("esc did not close the tree")
	}
	if len(tr.Labels()) != 1 {
		t.Errorf("labels %v", tr.Labels())
	}
}

func TestTreeWithoutSummaryAndDoubleEscape(t *testing.T) {
	dir := t.TempDir()
	rt := newTestRuntime(t, dir, 2)
	m := New(Host{Runtime: rt, Cwd: dir, FullScreen: true, SkipSummaryPrompt: true, Summarizer: func(context.Context, []session.Entry, string, bool) (session.BranchSummary, error) {
		t.Error("summarised although branchSummary.skipPrompt is set")
		return session.BranchSummary{}, nil
	}})
	press(m, "esc", "esc")
	if m.picker == nil {
		t.Fatal("esc twice on an empty editor did not open the tree")
	}
	press(m, "Answer 0", "enter")
	if m.dialog != nil {
		t.Fatal("asked about a summary despite skipPrompt")
	}
	before := len(rt.Transcript().Snapshot())
	run(m, m.navigate(m.rt.Transcript().LeafID(), false, ""))
	if len(rt.Transcript().Snapshot()) != before {
		t.Error("a move without a summary wrote entries")
	}
}

func TestForkCloneAndName(t *testing.T) {
	dir := t.TempDir()
	rt := newTestRuntime(t, dir, 2)
	m := New(Host{Runtime: rt, Cwd: dir, FullScreen: true})
	old := rt.Transcript()
	press(m, "/name", " ", "tree", " ", "work", "enter")
	if old.Name() != "tree work" || !strings.Contains(blocksText(m), "Session name set: tree work") {
		t.Errorf("/name: %q", old.Name())
	}
	press(m, "/name", "enter")
	if !strings.Contains(blocksText(m), "Session name: tree work") {
		t.Errorf("/name without a name:\n%s", blocksText(m))
	}

	press(m, "/fork", "enter")
	if m.picker == nil || !strings.Contains(plainView(m), "question 0") {
		t.Fatalf("/fork picker:\n%s", plainView(m))
	}
	press(m, "enter") // the last message is selected first
	if rt.Transcript() == old {
		t.Fatal("/fork stayed in the session")
	}
	if got := m.editor.Value(); !strings.HasPrefix(got, "question 1:") {
		t.Errorf("editor after /fork: %q", got)
	}
	if n := len(rt.Messages()); n != 4 {
		t.Errorf("the fork holds %d messages, want the first exchange (4)", n)
	}

	m.editor.Reset()
	forked := rt.Transcript()
	press(m, "/clone", "enter")
	if rt.Transcript() == forked || len(rt.Messages()) != 4 || m.editor.Value() != "" {
		t.Errorf("/clone: %d messages, editor %q", len(rt.Messages()), m.editor.Value())
	}
	_ = runtime.ErrBusy
}

// BenchmarkTreeOpen opens /tree on a 2,000-message session and types one
// search letter: what a person waits for.
func BenchmarkTreeOpen(b *testing.B) {
	dir := b.TempDir()
	rt := newTestRuntime(b, dir, 500)
	m := New(Host{Runtime: rt, Cwd: dir, FullScreen: true})
	b.ReportAllocs()
	for b.Loop() {
		m.openTree("")
		m.pickerKey(tea.KeyPressMsg{Code: 'q', Text: "q"})
		m.picker = nil
	}
}

// TestTreeWhileWorkingStopsTheRunFirst: /tree opens while the agent works
// and, once a move is chosen, stops the run (its queued message goes back
// to the editor) and then moves, as the established harness does.
func TestTreeWhileWorkingStopsTheRunFirst(t *testing.T) {
	dir := t.TempDir()
	rt := newTestRuntime(t, dir, 2)
	started := make(chan struct{})
	rt.Runner().Model = func(ctx context.Context, req provider.Request, on func(provider.StreamEvent)) (provider.Response, error) {
		close(started)
		<-ctx.Done()
		return provider.Response{}, ctx.Err()
	}
	m := New(Host{Runtime: rt, Cwd: dir, FullScreen: true, SkipSummaryPrompt: true})
	if _, err := rt.Prompt(session.Input{Text: "a long job"}, runtime.FollowUp); err != nil {
		t.Fatal(err)
	}
	<-started
	if _, err := rt.FollowUp(session.Input{Text: "then this"}); err != nil {
		t.Fatal(err)
	}
	m.working = true
	press(m, "/tree", "enter")
	if m.picker == nil {
		t.Fatalf("/tree did not open while the agent works:\n%s", blocksText(m))
	}
	run(m, press(m, "Answer 0", "enter"))
	var target string
	for _, e := range rt.Transcript().Snapshot() {
		if e.Type == session.TypeMessage && e.Message.Role == "assistant" && strings.Contains(e.Message.Content.Text(), "Answer 0") {
			target = e.ID
		}
	}
	if rt.State().Running {
		t.Fatal("the run goes on after the move")
	}
	if got := rt.Transcript().LeafID(); got != target {
		t.Errorf("leaf %s, want %s (the chosen entry)", got, target)
	}
	if got := m.editor.Value(); got != "then this" {
		t.Errorf("the editor holds %q, not the queued message", got)
	}
	if !strings.Contains(blocksText(m), "Navigated to selected point") {
		t.Errorf("no notice:\n%s", blocksText(m))
	}
}

// /tree on a session without entries says so and opens nothing; with
// entries it opens the picker.
func TestTreeOfAnEmptySession(t *testing.T) {
	dir := t.TempDir()
	m := fullScreen(t, Host{Runtime: newTestRuntime(t, dir, 0), Cwd: dir})
	press(m, "/tree", "enter")
	if m.picker != nil || !strings.Contains(plainView(m), "No entries in session") {
		t.Errorf("/tree on an empty session:\n%s", plainView(m))
	}
	m = fullScreen(t, Host{Runtime: newTestRuntime(t, dir, 1), Cwd: dir})
	press(m, "/tree", "enter")
	if m.picker == nil {
		t.Error("/tree with entries did not open the tree")
	}
}
