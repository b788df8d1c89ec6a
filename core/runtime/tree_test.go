package runtime

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/piwasm/pi/core/session"
)

func TestNavigate(t *testing.T) {
	rt := newFixture(t).rt
	for _, text := range []string{"first", "second"} {
		if _, err := rt.Run(session.Input{Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	tr := rt.Transcript()
	var users, replies []string
	for _, e := range tr.Branch() {
		if e.Type == session.TypeMessage && e.Message.Role == "user" {
			users = append(users, e.ID)
		}
		if e.Type == session.TypeMessage && e.Message.Role == "assistant" {
			replies = append(replies, e.ID)
		}
	}
	oldLeaf := tr.LeafID()

	// To the second user message: its parent, its text for the editor,
	// the branch left summarised from the old leaf back.
	var got []session.Entry
	sum := func(ctx context.Context, entries []session.Entry, instr string, replace bool) (session.BranchSummary, error) {
		got = entries
		if instr != "focus" {
			t.Errorf("instructions %q", instr)
		}
		return session.BranchSummary{Summary: "tried the second"}, nil
	}
	res, err := rt.Navigate(context.Background(), users[1], NavigateOptions{Summarize: true, Summarizer: sum, Instructions: "focus", Label: "back"})
	if err != nil {
		t.Fatal(err)
	}
	if res.EditorText != "second" || res.Summary == nil || res.Summary.ParentID != replies[0] || res.Summary.FromID != oldLeaf {
		t.Fatalf("result %+v", res)
	}
	if len(got) == 0 || got[len(got)-1].ID != oldLeaf || got[0].ID == users[1] {
		t.Errorf("summarised %d entries", len(got))
	}
	if l := tr.Labels()[res.Summary.ID]; l.Text != "back" {
		t.Errorf("label on the summary: %+v", l)
	}
	msgs := rt.Messages()
	if last := msgs[len(msgs)-1]; last.Role != "branchSummary" && !strings.Contains(last.Content.Text()+last.Summary, "tried the second") {
		t.Errorf("the context does not end with the summary: %+v", last)
	}

	// Without a summary to an assistant reply: the leaf is the reply.
	if _, err := rt.Navigate(context.Background(), replies[0], NavigateOptions{}); err != nil {
		t.Fatal(err)
	}
	if tr.LeafID() != replies[0] || len(rt.Messages()) != 2 {
		t.Errorf("leaf %s, %d messages", tr.LeafID(), len(rt.Messages()))
	}
	// A failing summariser leaves the leaf where it was.
	_, err = rt.Navigate(context.Background(), users[0], NavigateOptions{Summarize: true,
		Summarizer: func(context.Context, []session.Entry, string, bool) (session.BranchSummary, error) {
			return session.BranchSummary{}, errors.New("model down")
		}})
	if err == nil || tr.LeafID() != replies[0] {
		t.Errorf("after a failed summary: %v, leaf %s", err, tr.LeafID())
	}
	if _, err := rt.Navigate(context.Background(), "missing", NavigateOptions{}); err == nil {
		t.Error("a missing entry was accepted")
	}
	// To the first message: its parent (the prompt record before it),
	// nothing of the conversation in context.
	first, _ := tr.Lookup(users[0])
	res, _ = rt.Navigate(context.Background(), users[0], NavigateOptions{})
	if res.EditorText != "first" || len(rt.Messages()) != 0 || tr.LeafID() != first.ParentID {
		t.Errorf("at the root: %+v, %d messages", res, len(rt.Messages()))
	}
}
