package compact

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/piwasm/pi/core/prompt"
	"github.com/piwasm/pi/core/session"
)

func msgEntry(id, parent string, m prompt.Message) session.Entry {
	return session.Entry{Type: session.TypeMessage, ID: id, ParentID: parent, Message: &m}
}

func call(name, args string) prompt.Message {
	return prompt.Message{Role: "assistant", Content: prompt.Content{Blocks: []prompt.Block{{Type: "toolCall", ID: "c", Name: name, Arguments: json.RawMessage(args)}}}}
}

func userText(s string) prompt.Message {
	return prompt.Message{Role: "user", Content: prompt.Content{Blocks: []prompt.Block{{Type: "text", Text: s}}}}
}

// TestSummarizeBranch: moving from the tip of an explored branch back to
// an earlier entry summarises only what the move leaves behind (not the
// shared part, not the other branch), without tool results, with the
// files it touched and earlier branch summaries' files, in the stored
// entry's shape.
func TestSummarizeBranch(t *testing.T) {
	yes := false
	all := []session.Entry{
		msgEntry("a", "", userText("start")),
		msgEntry("b", "a", call("read", `{"path":"shared.go"}`)),
		msgEntry("c", "b", userText("explore the cache")),
		msgEntry("d", "c", call("edit", `{"path":"cache.go","edits":[]}`)),
		msgEntry("r", "d", prompt.Message{Role: prompt.RoleToolResult, ToolCallID: "c", Content: prompt.TextContent("SECRET RESULT"), IsError: &yes}),
		{Type: session.TypeBranchSummary, ID: "s", ParentID: "r", Summary: "older", FromID: "x", Files: &session.FileLists{ReadFiles: []string{"old.go"}}},
		msgEntry("e", "b", userText("other branch")),
	}
	left := BranchEntries(all, "s", "b")
	var ids []string
	for _, e := range left {
		ids = append(ids, e.ID)
	}
	if strings.Join(ids, ",") != "c,d,r,s" {
		t.Fatalf("entries left behind: %v", ids)
	}
	f := &fakeModel{}
	s, err := SummarizeBranch(context.Background(), left, BranchOptions{Model: Model{Complete: f.complete}})
	if err != nil {
		t.Fatal(err)
	}
	req := f.reqs[0].Messages[1].Parts[0].Text
	want := "<conversation>\n[User]: explore the cache\n\n[Assistant tool calls]: edit(path=\"cache.go\", edits=[])\n\n[User]: The following is a summary of a branch that this conversation came back from:\n\n<summary>\nolder</summary>\n</conversation>\n\n"
	if !strings.HasPrefix(req, want) || strings.Contains(req, "SECRET") || strings.Contains(req, "shared.go") || strings.Contains(req, "other branch") {
		t.Fatalf("request:\n%q", req)
	}
	wantSummary := branchPreamble + "## Goal\nSUMMARY-1\n" + "\n\n<read-files>\nold.go\n</read-files>\n\n<modified-files>\ncache.go\n</modified-files>"
	if s.Summary != wantSummary {
		t.Fatalf("summary %q\nwant %q", s.Summary, wantSummary)
	}
	raw, _ := json.Marshal(s.Entry(""))
	for _, k := range []string{`"type":"branch_summary"`, `"fromId":"root"`, `"modifiedFiles":["cache.go"]`, `"fromHook":false`} {
		if !strings.Contains(string(raw), k) {
			t.Errorf("entry lacks %s: %s", k, raw)
		}
	}
	// A tight budget keeps the newest messages only.
	f2 := &fakeModel{}
	if _, err := SummarizeBranch(context.Background(), left[:2], BranchOptions{Model: Model{Complete: f2.complete}, ContextWindow: 10, Settings: BranchSettings{ReserveTokens: 0}}); err != nil {
		t.Fatal(err)
	}
	if r := f2.reqs[0].Messages[1].Parts[0].Text; strings.Contains(r, "explore the cache") || !strings.Contains(r, "edit(") {
		t.Fatalf("budget not applied: %q", r)
	}
	empty, err := SummarizeBranch(context.Background(), nil, BranchOptions{})
	if err != nil || !empty.Empty || empty.Summary != NoContent {
		t.Fatalf("empty branch: %+v %v", empty, err)
	}
}
